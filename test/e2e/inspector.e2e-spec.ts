import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';

import Redis from 'ioredis';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { errorToRecord } from '../../lib/core/task-serializer';
import { cliStage, STAGE_STORES } from '../helpers/cli-stage';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server';
import { testAlias } from '../helpers/test-alias';
import { TmuxSession } from '../helpers/tmux-session';
import { storeRules } from '../../lib/lifecycle/store-rules';

// The real `threadmill inspector` (the sample app's CLI, run from source) in a
// real terminal (tmux, 160x48) against the run's real Redis or Postgres.

const ROOT = join(__dirname, '..', '..');
const QUEUE = 'default';

class ReportFailedError extends Error {
  override readonly name = 'ReportFailedError';
}

function taskRecord(
  alias: string,
  name: string,
  { priority = 0, runAfter = null }: { priority?: number; runAfter?: Date | null } = {},
): TaskRecord {
  return {
    id: randomUUID(),
    task: { name, queue: QUEUE, priority, runAfter, backend: alias },
    status: TaskResultStatus.READY,
    enqueuedAt: new Date(),
    startedAt: null,
    finishedAt: null,
    lastAttemptedAt: null,
    args: ['2026-11-29'],
    errors: [],
    workerIds: [],
  };
}

/**
 * The command line that starts the inspector with `env` (the store's
 * variables; none when the terminal already has them), then prints how it exited.
 */
function inspectorCommand(alias: string, env: Record<string, string>): string {
  const vars = Object.entries({ ...env, THREADMILL_ALIAS: alias, THREADMILL_LOG_LEVEL: 'warn' })
    .map(([name, value]) => `${name}='${value}'`)
    .join(' ');
  const cli = 'node -r ./test/helpers/transpile-register.js sample/src/worker.ts';
  return `env ${vars} ${cli} inspector --alias ${alias}; echo "EXIT:$?"`;
}

/**
 * Whether a capture holds a whole frame, down to the panes' bottom border:
 * tmux can capture one mid-draw, before its lower rows are written.
 */
const wholeFrame = (screen: string): boolean => screen.includes('╯');

describe.each(STAGE_STORES)('threadmill inspector (e2e, tmux, on %s)', (store) => {
  // Each test boots the sample app from source in a terminal, on 2 shared cores.
  jest.setTimeout(120_000);
  const stage = cliStage([QUEUE, 'emails'], store);
  let alias: string;
  let backend: TaskBackend;
  let terminal: TmuxSession | undefined;

  beforeEach(() => {
    ({ alias, backend } = stage);
  });

  afterEach(async () => {
    await terminal?.kill();
    terminal = undefined;
  });

  it('shows every tab, a failed task with its error, and quits on q with the terminal restored', async () => {
    // Three tasks go first (priority 10) so acquire takes exactly these.
    const first = ['Reports.daily', 'Mail.send', 'Images.resize'].map((name) =>
      taskRecord(alias, name, { priority: 10 }),
    );
    await backend.tasks.enqueueMany(first);
    const running = await backend.leases.acquire([QUEUE], {
      workerId: 'e2e-host:4242-0',
      max: 3,
      timeoutMs: 0,
    });
    expect(running).toHaveLength(3);
    const byName = (name: string): TaskRecord => running.find((r) => r.task.name === name)!;
    const now = new Date();
    const failure = errorToRecord(new ReportFailedError('the report for 2026-11-29 has no rows'));
    await backend.leases.acknowledge([
      {
        ...byName('Reports.daily'),
        status: TaskResultStatus.FAILED,
        finishedAt: now,
        errors: [failure],
      },
      {
        ...byName('Mail.send'),
        status: TaskResultStatus.SUCCESSFUL,
        finishedAt: now,
        returnValue: 'sent',
      },
    ]);
    const waiting = taskRecord(alias, 'Billing.invoice');
    const deferred = taskRecord(alias, 'Billing.remind', {
      runAfter: new Date(Date.now() + 3_600_000),
    });
    await backend.tasks.enqueueMany([waiting, deferred]);
    const failedId = byName('Reports.daily').id;

    terminal = await TmuxSession.start({ width: 160, height: 48, cwd: ROOT });
    await terminal.type(inspectorCommand(alias, stage.env()));

    // Opens on Ready, counts on every tab.
    let screen = await terminal.until((s) => s.includes(waiting.id), 'the ready task', 60_000);
    expect(screen).toContain(`Threadmill inspector · backend ${alias}`);
    await terminal.until(
      (s) => /1 Running 1\s+2 Ready 1\s+3 Deferred 1\s+4 Successful 1\s+5 Failed 1/.test(s),
      'the tab counts',
    );

    await terminal.press('1');
    screen = await terminal.until(
      (s) => s.includes(byName('Images.resize').id),
      'the running task',
    );
    expect(screen).toMatch(/ID\s+TASK\s+PRIORITY\s+STARTED\s+ATTEMPTS\s+WORKERS/);
    expect(screen).toMatch(/Images\.resize\s+10\s+\S+( ago)?\s+1\s+e2e-host:4242-0/);

    await terminal.press('3');
    screen = await terminal.until((s) => s.includes(deferred.id), 'the deferred task');
    expect(screen).toMatch(/Billing\.remind\s+in (59|60)m/);

    await terminal.press('4');
    screen = await terminal.until((s) => s.includes(byName('Mail.send').id), 'the successful task');
    expect(screen).toMatch(/ID\s+TASK\s+FINISHED\s+ATTEMPTS\s+WORKERS/);

    await terminal.press('5');
    screen = await terminal.until((s) => s.includes(failedId), 'the failed task');
    expect(screen).toMatch(/Reports\.daily\s+\S+( ago)?\s+ReportFailedError/);

    await terminal.press('Enter');
    // The traceback is read from the lower rows of the frame.
    screen = await terminal.until(
      (s) => s.includes(`Task ${failedId}`) && wholeFrame(s),
      'the detail pane',
    );
    expect(screen).toMatch(/status\s+FAILED/);
    expect(screen).toContain('#1 ReportFailedError');
    expect(screen).toContain('ReportFailedError: the report for 2026-11-29 has no rows');
    expect(screen).toMatch(/at .*inspector\.e2e-spec\.ts/);

    await terminal.press('q');
    screen = await terminal.until((s) => /EXIT:\d+/.test(s), 'the exit status', 20_000);
    expect(screen).toMatch(/^EXIT:0$/m);
    // The alternate screen is gone: the shell's own screen is back, the UI is not.
    expect(screen).not.toContain('Threadmill inspector');
    expect(screen).toContain('inspector --alias');
  });

  // A million ready tasks must not slow the first screen. Filling a
  // million through enqueueMany takes minutes on a shared machine, so this
  // test uses 100k and bench/inspector-first-screen.ts measures the million.
  // Peek and telemetry cost the same either way (ZRANGE with a limit, ZCARD).
  it('shows the first screen within 2 s with 100k ready tasks, and restores the terminal on SIGTERM', async () => {
    const total = 100_000;
    const chunk = 5_000;
    const enqueuedAt = new Date();
    let firstId = '';
    for (let done = 0; done < total; done += chunk) {
      const records = Array.from({ length: chunk }, () => ({
        ...taskRecord(alias, 'Bulk.fill'),
        enqueuedAt,
      }));
      if (done === 0) firstId = records[0].id;
      await backend.tasks.enqueueMany(records);
    }

    terminal = await TmuxSession.start({ width: 160, height: 48, cwd: ROOT });
    const launched = Date.now();
    await terminal.type(inspectorCommand(alias, stage.env()));
    // The clock starts at the inspector's first frame (the app booted, Ink
    // drew), before any read of the backend: what follows is the cost of the
    // reads and of drawing them, which is what a big queue could slow down.
    await terminal.until((s) => s.includes('Threadmill inspector ·'), 'the first frame', 60_000);
    const firstFrame = Date.now();
    const screen = await terminal.until(
      (s) => s.includes('2 Ready 100k') && s.includes(firstId),
      'the counts and the first rows',
    );
    const shown = Date.now();
    expect(screen).toMatch(/default\s+100k ▸ 0/);
    expect(shown - firstFrame).toBeLessThan(2000);
    process.stdout.write(
      `inspector with ${total} ready tasks: first frame ${firstFrame - launched} ms after launch, ` +
        `counts and rows ${shown - firstFrame} ms later\n`,
    );
    // Killed rather than quit, it still gives the terminal back.
    process.kill(await terminal.foregroundPid(), 'SIGTERM');
    const after = await terminal.until((s) => /^EXIT:\d+$/m.test(s), 'the exit on SIGTERM');
    expect(after).toMatch(/^EXIT:0$/m);
    expect(after).not.toContain('Threadmill inspector');
  });
});

// A Redis server of each test's own: what the inspector says when that Redis goes or refuses it.
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
        queues: [QUEUE],
      },
      storeRules,
    );
    try {
      const before = taskRecord(alias, 'Before.outage');
      await own.tasks.enqueue(before);
      terminal = await TmuxSession.start({ width: 160, height: 48, cwd: ROOT });
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
      const after = taskRecord(alias, 'After.outage');
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
        queues: [QUEUE],
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
      const waiting = taskRecord(alias, 'Behind.the.password');
      await own.tasks.enqueue(waiting);
      // The URL is in the terminal's environment: typed, it would stay on the screen.
      terminal = await TmuxSession.start({
        width: 160,
        height: 48,
        cwd: ROOT,
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

  it('is the only part of the library that loads Ink and React, and only when it runs', async () => {
    // A real process, so require.cache is Node's own and not Jest's registry.
    const probe = `
      require('reflect-metadata');
      const cli = require('./lib/cli');
      if (!cli.ThreadmillCommandsModule) throw new Error('the CLI module is not exported');
      const loaded = Object.keys(require.cache).filter((f) => /node_modules\\/(ink|react)\\//.test(f));
      process.stdout.write(JSON.stringify(loaded));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', './test/helpers/transpile-register.js', '-e', probe],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(JSON.parse(stdout)).toEqual([]);
  });
});
