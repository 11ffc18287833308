import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';

import Redis from 'ioredis';

import { RedisBackend } from '../lib/backends/redis/redis.backend';
import { readyRecord } from '../test/helpers/ready-record';
import { removeAliasKeys } from '../test/helpers/redis-cleanup';
import { findProjectRoot } from './project-paths';
import { storeRules } from '../lib/lifecycle/store-rules';

/** The alias the CLI's commands read: one task stored, nothing else. */
const CLI_ALIAS = 'bench-cli';

/** One start of each: the CLI's commands, and what every start of it pays before them (ms, spawn to exit). */
export interface CliStartSample {
  /** `threadmill result <id>` of a stored task. */
  resultMs: number;
  /** `threadmill queues list`. */
  queuesListMs: number;
  /** `node -e ""`: Node alone. */
  nodeMs: number;
  /** Node loading what the CLI entry imports (the sample app, Nest, nest-commander, Threadmill), then exiting. */
  modulesMs: number;
}

/** Runs `node ...args` to its end (in `cwd`, with `env` added) and returns how long it took (ms). */
function timedNode(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    execFile(
      process.execPath,
      args,
      { cwd, env: { ...process.env, ...env } },
      (error, _out, stderr) => {
        if (error) reject(new Error(`node ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        else resolve(performance.now() - started);
      },
    );
  });
}

/**
 * How long the sample's CLI takes from spawn to exit for the two commands
 * people run by hand most (`result <id>`, `queues list`), `starts` times
 * each, on Redis at `url` under an alias of its own; with, each time, Node
 * alone and Node loading the entry's modules, which tell the part of a
 * start the CLI cannot change from the part it can (Nest's boot, the store's
 * connection, the command). The sample is built first (`npm run -s
 * build:sample`, as the pool figures do); the alias's keys are removed after.
 */
export async function measureCliStart(url: string, starts: number): Promise<CliStartSample[]> {
  const root = findProjectRoot();
  execFileSync('npm', ['run', '-s', 'build:sample'], { cwd: root, stdio: 'inherit' });
  const src = join(root, 'sample-dist', 'sample', 'src');
  const entry = join(src, 'worker.js');
  // What worker.js imports, in its order, without running a command.
  const modules = [
    join(src, 'tracing', 'tracing.js'),
    'reflect-metadata',
    join(root, 'sample-dist', 'lib', 'cli'),
    join(src, 'app.module.js'),
  ];
  const backend = new RedisBackend(
    CLI_ALIAS,
    {
      backend: RedisBackend,
      url,
      queues: ['default', 'emails'],
    },
    storeRules,
  );
  try {
    const task = readyRecord(CLI_ALIAS, { name: 'sample.echo', args: ['bench'] });
    await backend.tasks.enqueueMany([task]);
    const env = { REDIS_URL: url, THREADMILL_ALIAS: CLI_ALIAS, NO_COLOR: '1' };
    const samples: CliStartSample[] = [];
    for (let start = 0; start < starts; start++) {
      samples.push({
        nodeMs: await timedNode(['-e', ''], root, env),
        modulesMs: await timedNode(
          ['-e', modules.map((m) => `require(${JSON.stringify(m)});`).join('')],
          root,
          env,
        ),
        resultMs: await timedNode([entry, 'result', task.id], root, env),
        queuesListMs: await timedNode([entry, 'queues', 'list'], root, env),
      });
    }
    return samples;
  } finally {
    await backend.close();
    const redis = new Redis(url);
    await removeAliasKeys(redis, CLI_ALIAS);
    await redis.quit();
  }
}
