import Redis from 'ioredis';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { storeRules } from '../../lib/lifecycle/store-rules';
import {
  INSPECTOR_QUEUE,
  INSPECTOR_ROOT,
  inspectorCommand,
  inspectorTask,
  wholeFrame,
} from '../helpers/inspector-terminal';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server';
import { testAlias } from '../helpers/test-alias';
import { TmuxSession } from '../helpers/tmux-session';

// The real `threadmill inspector` in a real terminal (tmux, 160x48), each test
// on a Redis server of its own: what the inspector says when that Redis goes
// away or refuses it.

describe('threadmill inspector (e2e, tmux): a Redis that goes away or refuses', () => {
  // Each test boots the sample app from source in a terminal, on 2 shared cores.
  jest.setTimeout(120_000);
  let alias: string;
  let terminal: TmuxSession | undefined;

  beforeEach(() => {
    alias = testAlias();
  });

  afterEach(async () => {
    await terminal?.kill();
    terminal = undefined;
  });

  it('says plainly that Redis is unreachable, keeps retrying, and recovers when it is back', async () => {
    // A Redis of this test's own, so stopping it disturbs nobody.
    let server: RedisServerHandle | undefined = await startRedisServer();
    const port = server.port;
    const own = new RedisBackend(
      alias,
      {
        backend: RedisBackend,
        url: server.url,
        queues: [INSPECTOR_QUEUE],
      },
      storeRules,
    );
    try {
      const before = inspectorTask(alias, 'Before.outage');
      await own.tasks.enqueue(before);
      terminal = await TmuxSession.start({ width: 160, height: 48, cwd: INSPECTOR_ROOT });
      await terminal.type(inspectorCommand(alias, { REDIS_URL: server.url }));
      await terminal.until((s) => s.includes(before.id), 'the task before the outage', 60_000);

      await server.stop();
      server = undefined;
      const screen = await terminal.until(
        (s) => s.includes(`did not answer`),
        'the unreachable message',
      );
      expect(screen).toMatch(/Retrying every 2 s \(q quits\)\. Backend "t-[^"]+" did not answer/);
      expect(screen).not.toMatch(/^\s+at /m);

      // Back on the same port, empty (no persistence): one new task.
      server = await startRedisServer([], port);
      const after = inspectorTask(alias, 'After.outage');
      await own.tasks.enqueue(after);
      await terminal.until((s) => !s.includes('did not answer'), 'the message to go', 30_000);
      await terminal.press('r');
      await terminal.until((s) => s.includes(after.id), 'the task after the outage');
      await terminal.press('q');
      await terminal.until((s) => /^EXIT:0$/m.test(s), 'a clean exit');
    } finally {
      await own.close();
      await server?.stop();
    }
  });

  it('names a refused password on screen with the URL masked, never shows the password, and recovers', async () => {
    // A Redis of this test's own that wants a password; the inspector logs in as a
    // user that does not exist yet. Characters a URL must escape, so that neither
    // the password nor its escaped form may show.
    const server = await startRedisServer();
    const ADMIN_PASSWORD = 'Adm1n-of-this-test';
    const PASSWORD = 'S3cret/0f@the%inspector';
    const escaped = encodeURIComponent(PASSWORD);
    const setup = new Redis(server.url);
    await setup.config('SET', 'requirepass', ADMIN_PASSWORD);
    await setup.quit();
    const admin = new Redis(`redis://:${ADMIN_PASSWORD}@127.0.0.1:${server.port}`);
    const own = new RedisBackend(
      alias,
      {
        backend: RedisBackend,
        url: `redis://:${ADMIN_PASSWORD}@127.0.0.1:${server.port}`,
        queues: [INSPECTOR_QUEUE],
      },
      storeRules,
    );
    // Every screen read, so the last assertion covers all of them.
    const screens: string[] = [];
    const until = (accept: (s: string) => boolean, what: string, timeoutMs?: number) =>
      terminal!.until(
        (s) => {
          screens.push(s);
          return accept(s);
        },
        what,
        timeoutMs,
      );
    try {
      const waiting = inspectorTask(alias, 'Behind.the.password');
      await own.tasks.enqueue(waiting);
      // The URL is in the terminal's environment: typed, it would stay on the screen.
      terminal = await TmuxSession.start({
        width: 160,
        height: 48,
        cwd: INSPECTOR_ROOT,
        env: { REDIS_URL: `redis://inspector:${escaped}@127.0.0.1:${server.port}` },
      });
      await terminal.type(inspectorCommand(alias, {}));

      const screen = await until(
        (s) => s.includes('WRONGPASS') && wholeFrame(s),
        'the refused password',
        60_000,
      );
      // The status rows, between the header and the panes, read as one message.
      const rows = screen.split('\n');
      const status = rows
        .slice(
          1,
          rows.findIndex((row) => row.includes('╭')),
        )
        .map((row) => row.trim())
        .join(' ');
      expect(status).toContain(
        `⚠ Retrying every 2 s (q quits). Backend "${alias}" did not answer: ` +
          `Threadmill backend "${alias}" cannot use Redis at redis://inspector:***@127.0.0.1:${server.port}: ` +
          'WRONGPASS invalid username-password pair or user is disabled. ' +
          'Check that Redis runs and that the URL, credentials and network are right.',
      );
      expect(screen).toContain('loading…');

      // The user is created: the inspector's next retry gets in, and the message goes.
      await admin.acl('SETUSER', 'inspector', 'on', `>${PASSWORD}`, '~*', '+@all');
      await until((s) => s.includes(waiting.id), 'the task once the password is accepted', 30_000);
      await until((s) => !s.includes('WRONGPASS'), 'the message to go');
      await terminal.press('q');
      const after = await until((s) => /^EXIT:0$/m.test(s), 'a clean exit');
      // What the backend logged meanwhile is printed once the screen is closed, masked too.
      expect(after.replace(/\n/g, '')).toContain(
        `main connection to redis://inspector:***@127.0.0.1:${server.port} failed: WRONGPASS`,
      );

      expect(screens.length).toBeGreaterThan(0);
      const leaked = screens.filter((s) => s.includes(PASSWORD) || s.includes(escaped));
      expect(leaked).toEqual([]);
    } finally {
      await own.close();
      await admin.quit();
      await server.stop();
    }
  });
});
