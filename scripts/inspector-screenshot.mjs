// Regenerates docs/inspector.svg from the real inspector: the sample app's
// `threadmill inspector` in a real terminal (tmux, 120 x 34), on a private
// redis-server on a free loopback port, with a worker pool of the sample app
// holding two long tasks, a backlog behind them, a deferred task, and a few
// finished and failed ones. The frame is captured with its colours
// (`tmux capture-pane -p -e`) and drawn as SVG by ./ansi-to-svg.mjs.
//
//   node scripts/inspector-screenshot.mjs [--out docs/inspector.svg] [--ansi capture.ansi]
//
// Needs redis-server and tmux on the PATH. Everything it starts (Redis, the
// pool, tmux's server on a socket of its own) is stopped before it exits.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { ansiToSvg } from './ansi-to-svg.mjs';
import {
  canSetHostName,
  cleanUp,
  FROM_SOURCES,
  onCleanUp,
  ROOT,
  run,
  sampleEnv,
  sleep,
  startNode,
  startRedis,
  waitFor,
  WORKER_HOST,
} from './sample-stage.mjs';

const WIDTH = 120;
const HEIGHT = 34;
/** The detail pane is scrolled to start at this line: the last fields, then the error. */
const FIRST_DETAIL_LINE = 11;

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const out = resolve(option('--out', join(ROOT, 'docs', 'inspector.svg')));
const ansiOut = option('--ansi', undefined);

async function main() {
  const env = sampleEnv(await startRedis('threadmill-screenshot-'));
  // The sample app's CLI, run from its sources.
  const cliArgs = [...FROM_SOURCES, 'sample/src/worker.ts'];
  const cli = async (...command) => {
    const { stdout } = await run(process.execPath, [...cliArgs, ...command], { cwd: ROOT, env });
    return stdout.trim().split('\n').filter(Boolean);
  };
  const status = async (id) => JSON.parse((await cli('result', id)).join('\n')).status;

  // The pool: its long tasks never finish, the second SIGTERM on clean-up releases them.
  startNode([...cliArgs, 'worker', '--processes', '1', '--threads', '2'], {
    cwd: ROOT,
    env,
    hostName: (await canSetHostName()) ? WORKER_HOST : undefined,
    stdio: 'ignore',
  });

  // Finished tasks first: a dozen successful, a few failed (the last one is opened below).
  const [probe] = await cli('enqueue', 'sample.echo', '--args', '["hello"]');
  await waitFor('the pool', async () => (await status(probe)) === 'SUCCESSFUL');
  await cli('enqueue', 'sample.echo', '--args', '["hello"]', '--count', '9');
  await cli('enqueue', 'sample.greet', '--args', '["Ada"]');
  await cli('enqueue', 'sample.greet', '--args', '["Grace"]');
  const failures = [
    'upstream timed out after 30000 ms',
    'invoice 1042 is already paid',
    'SMTP 421: service not available',
    'the report for 2026-11-29 has no rows',
  ];
  let failed = '';
  for (const message of failures) {
    [failed] = await cli('enqueue', 'sample.fail', '--args', JSON.stringify([message]));
    await waitFor('a failed task', async () => (await status(failed)) === 'FAILED');
  }
  // Two long tasks hold both slots, so what follows stays in line.
  const running = await cli('enqueue', 'sample.sleep', '--args', '[3600000]', '--count', '2');
  for (const id of running)
    await waitFor('a running task', async () => (await status(id)) === 'RUNNING');
  await cli('enqueue', 'sample.echo', '--args', '["backlog"]', '--count', '1500');
  await cli('enqueue', 'sample.greet', '--args', '["Linus"]', '--queue', 'emails', '--count', '40');
  const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
  await cli('enqueue', 'sample.echo', '--args', '["later"]', '--run-after', inAnHour);

  // The inspector in a terminal of its own, on a tmux server of its own.
  const socket = `threadmill-screenshot-${randomUUID()}`;
  const tmux = (...command) => run('tmux', ['-L', socket, ...command], { encoding: 'utf8' });
  await tmux(
    'new-session',
    '-d',
    '-s',
    'main',
    '-x',
    String(WIDTH),
    '-y',
    String(HEIGHT),
    '-c',
    ROOT,
    ...['REDIS_URL', 'THREADMILL_ALIAS', 'THREADMILL_LOG_LEVEL'].flatMap((name) => [
      '-e',
      `${name}=${env[name]}`,
    ]),
    'env PS1="$ " bash --norc --noprofile',
  );
  onCleanUp(async () => {
    await tmux('kill-server').catch(() => undefined);
  });
  const screen = async () => (await tmux('capture-pane', '-p', '-t', 'main')).stdout;
  const until = (what, accept) =>
    waitFor(what, async () => {
      const text = await screen();
      // A whole frame, down to the panes' bottom border.
      return accept(text) && text.includes('╯') ? text : null;
    });
  await tmux('send-keys', '-t', 'main', '-l', `node ${cliArgs.join(' ')} inspector`);
  await tmux('send-keys', '-t', 'main', 'Enter');
  await until(
    'the first frame',
    (text) => text.includes('Threadmill inspector ·') && text.includes('Ready 1.5k'),
  );

  // The Failed tab, and the failed task's detail scrolled to its last fields and its error.
  await tmux('send-keys', '-t', 'main', '5');
  await until('the failed task', (text) => text.includes(failed.slice(0, 20)));
  await tmux('send-keys', '-t', 'main', 'Enter');
  await until('the detail pane', (text) => text.includes(`Task ${failed}`));
  for (let line = 1; line < FIRST_DETAIL_LINE; line++) {
    await tmux('send-keys', '-t', 'main', 'Down');
  }
  await until(
    'the error',
    (text) =>
      text.includes(`lines ${FIRST_DETAIL_LINE}-`) && text.includes('the report for 2026-11-29'),
  );
  await sleep(500);
  const { stdout: capture } = await tmux('capture-pane', '-p', '-e', '-t', 'main');

  await tmux('send-keys', '-t', 'main', 'q');
  if (ansiOut) writeFileSync(ansiOut, capture);
  writeFileSync(out, ansiToSvg(capture, { title: 'npx threadmill inspector', columns: WIDTH }));
  process.stdout.write(`wrote ${out}\n`);
}

try {
  await main();
} finally {
  await cleanUp();
}
