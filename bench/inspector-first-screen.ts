import { storeRules } from '../lib/lifecycle/store-rules';
/**
 * How long the inspector takes to show its first screen over a big queue
 * (the target: a million ready tasks, first screen within 2 s).
 *
 *   npm run -s bench:inspector -- [--tasks 1000000]
 *
 * Fills one fresh alias with ready tasks through RedisBackend.enqueueMany (on
 * REDIS_URL, or a private redis-server), runs the sample's real
 * `threadmill inspector` in a tmux terminal, and reports the time from the
 * inspector's first frame (app booted, Ink drew) to the screen with the counts
 * and the first rows; it exits 1 when that exceeds 2 s. The alias is removed
 * afterwards (SCAN+UNLINK of its prefix). The e2e suite runs the same check
 * with 100k tasks, because filling a million takes minutes.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import Redis from 'ioredis';

import { RedisBackend } from '../lib/backends/redis/redis.backend';
import type { TaskRecord } from '../lib/core/task-record.interface';
import { TaskResultStatus } from '../lib/core/task-result-status.enum';
import { removeAliasKeys } from '../test/helpers/redis-cleanup';
import { startRedisServer, type RedisServerHandle } from '../test/helpers/redis-server';
import { TmuxSession } from '../test/helpers/tmux-session';

const ROOT = join(__dirname, '..');
const LIMIT_MS = 2000;
const CHUNK = 5000;

function argValue(flag: string, fallback: number): number {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

async function main(): Promise<number> {
  const total = argValue('--tasks', 1_000_000);
  let server: RedisServerHandle | undefined;
  const url = process.env.REDIS_URL ?? (server = await startRedisServer()).url;
  const alias = `bench-inspector-${randomUUID()}`;
  const backend = new RedisBackend(
    alias,
    { backend: RedisBackend, url, queues: ['default'] },
    storeRules,
  );
  const redis = new Redis(url);
  let terminal: TmuxSession | undefined;
  try {
    const enqueuedAt = new Date();
    const fillStart = Date.now();
    let firstId = '';
    for (let done = 0; done < total; done += CHUNK) {
      const records: TaskRecord[] = Array.from({ length: Math.min(CHUNK, total - done) }, () => ({
        id: randomUUID(),
        task: { name: 'Bench.fill', queue: 'default', priority: 0, runAfter: null, backend: alias },
        status: TaskResultStatus.READY,
        enqueuedAt,
        startedAt: null,
        finishedAt: null,
        lastAttemptedAt: null,
        args: [done],
        errors: [],
        workerIds: [],
      }));
      if (done === 0) firstId = records[0].id;
      await backend.tasks.enqueueMany(records);
      if ((done / CHUNK) % 20 === 0)
        process.stdout.write(`\rfilled ${done + records.length}/${total}`);
    }
    process.stdout.write(`\rfilled ${total} ready tasks in ${Date.now() - fillStart} ms\n`);

    terminal = await TmuxSession.start({ width: 160, height: 48, cwd: ROOT });
    const launched = Date.now();
    await terminal.type(
      `REDIS_URL=${url} THREADMILL_ALIAS=${alias} THREADMILL_LOG_LEVEL=warn ` +
        `node -r ./test/helpers/transpile-register.js sample/src/worker.ts inspector; echo "EXIT:$?"`,
    );
    await terminal.until((s) => s.includes('Threadmill inspector ·'), 'the first frame', 120_000);
    const firstFrame = Date.now();
    const screen = await terminal.until(
      (s) => /2 Ready \d/.test(s) && s.includes(firstId),
      'the counts and the first rows',
    );
    const shown = Date.now();
    await terminal.press('q');
    await terminal.until((s) => /^EXIT:0$/m.test(s), 'a clean exit');

    const elapsed = shown - firstFrame;
    process.stdout.write(
      `${screen}\n` +
        `launch to first frame: ${firstFrame - launched} ms (Node, the TypeScript transpile hook, Nest)\n` +
        `first frame to counts and rows with ${total} ready tasks: ${elapsed} ms (limit ${LIMIT_MS} ms)\n`,
    );
    return elapsed <= LIMIT_MS ? 0 : 1;
  } finally {
    await terminal?.kill();
    await backend.close();
    await removeAliasKeys(redis, alias);
    await redis.quit();
    await server?.stop();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
