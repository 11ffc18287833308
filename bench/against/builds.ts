import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import type Redis from 'ioredis';
import type * as NestCore from '@nestjs/core';

import { RedisKeys } from '../../lib/backends/redis/redis-keys';
import type { BackendConstructor } from '../../lib/core/backend-config.interface';
// The public entry point, so the benchmark's tsc emits it beside the rest of lib/.
import type * as PublicApi from '../../lib/index';
import { THREADMILL_POOL_ALIAS, type Log, type PoolKeys } from '../pool-drain';
import type { ThreadmillApi } from '../task-service.producer';
import { inParts } from './flat-backend';
import type { Side } from './schedule';

/**
 * One build of Threadmill, as the A/B mode drives it: through its main
 * entry point (`@threadmill/nestjs` as built: the current tree's lib/
 * compiled by the benchmark's tsc, the ref's dist/ from its own `npm run
 * build`) and its own sample CLI.
 */
export interface Build {
  side: Side;
  /** How the table names it: "current (abc1234 + uncommitted changes)", "HEAD~3 (def5678)". */
  label: string;
  /** Its checkout; the sample CLI starts there. */
  root: string;
  /** The main entry point loaded. */
  entry: string;
  RedisBackend: BackendConstructor;
  /** Its ThreadmillModule, TaskService and Task, with the NestFactory it resolves: the enqueue figures. */
  api: ThreadmillApi;
  /** The ioredis class its backend resolves (the round-trip counter wraps its prototype). */
  ioredis: typeof Redis;
  /** Its key layout of the pool's queue, or null when it has no redis-keys module of its own. */
  poolKeys: PoolKeys | null;
  /** `sample-dist/sample/src/worker.js`, null when not built (no pool figure). */
  sampleCli: string | null;
}

/**
 * The backend methods every build has on its prototype; the in-process
 * figures' other calls (bench/backend.runner.ts, bench/threadmill.consumer.ts)
 * go through its parts, made of its own methods for an older build (inParts).
 */
const REQUIRED_METHODS = ['ping', 'close'] as const;

/**
 * Loads a build's main entry point and checks it has what the A/B mode
 * drives: a RedisBackend export with the methods above, and what the
 * enqueue figures go through as an app does (ThreadmillApi). Anything else
 * of the public API may differ between refs (the SQLite backend and the CLI
 * module moved to subpath exports) and is not used, so no other entry point
 * has to exist.
 */
export function loadBuild(
  side: Side,
  label: string,
  root: string,
  entry: string,
  sampleCli: string | null,
  log: Log,
): Build {
  if (!existsSync(entry)) throw new Error(`${label}: no ${entry}; did its build fail?`);
  const load = createRequire(entry);
  const exports = load(entry) as Partial<typeof PublicApi>;
  const Backend = exports.RedisBackend as BackendConstructor | undefined;
  if (typeof Backend !== 'function') {
    throw new Error(`${label}: ${entry} exports no RedisBackend, which the A/B mode drives`);
  }
  const prototype = Backend.prototype as unknown as Record<string, unknown>;
  const missing = REQUIRED_METHODS.filter((method) => typeof prototype[method] !== 'function');
  if (missing.length > 0) {
    throw new Error(`${label}: its RedisBackend lacks ${missing.join(', ')}`);
  }
  const api = publicApiOf(label, entry, load, exports);
  const ioredis = load('ioredis') as typeof Redis & { default?: typeof Redis };
  const poolKeys = ownPoolKeys(load, entry);
  if (sampleCli !== null && poolKeys === null) {
    log(`${label}: no RedisKeys of its own; its pool is counted in the current key layout`);
  }
  return {
    side,
    label,
    root,
    entry,
    RedisBackend: inParts(Backend),
    api,
    ioredis: ioredis.default ?? ioredis,
    poolKeys,
    sampleCli: sampleCli !== null && existsSync(sampleCli) ? sampleCli : null,
  };
}

/**
 * The build's ThreadmillModule (with `forRoot`), TaskService (with `enqueue`
 * and `enqueueMany`) and Task decorator, and the NestFactory of the
 * `@nestjs/core` it resolves, so its module is booted by its own Nest.
 */
function publicApiOf(
  label: string,
  entry: string,
  load: NodeJS.Require,
  exports: Partial<typeof PublicApi>,
): ThreadmillApi {
  const { ThreadmillModule, TaskService, Task } = exports;
  const service = (TaskService?.prototype ?? {}) as unknown as Record<string, unknown>;
  const lacking = [
    typeof ThreadmillModule?.forRoot !== 'function' && 'ThreadmillModule.forRoot',
    typeof service.enqueue !== 'function' && 'TaskService.enqueue',
    typeof service.enqueueMany !== 'function' && 'TaskService.enqueueMany',
    typeof Task !== 'function' && 'Task',
  ].filter((name): name is string => name !== false);
  if (lacking.length > 0 || !ThreadmillModule || !TaskService || !Task) {
    throw new Error(
      `${label}: ${entry} exports no ${lacking.join(', ')}, which the enqueue figures go through`,
    );
  }
  const { NestFactory } = load('@nestjs/core') as Partial<typeof NestCore>;
  if (typeof NestFactory?.createApplicationContext !== 'function') {
    throw new Error(`${label}: the @nestjs/core it resolves has no NestFactory`);
  }
  return { ThreadmillModule, TaskService, Task, NestFactory };
}

/**
 * The pool figure counts the queue from outside, in the build's own key
 * layout: its internal `backends/redis/redis-keys.js` beside the entry point
 * when it has one with `queue()` and `running()`.
 */
function ownPoolKeys(load: NodeJS.Require, entry: string): PoolKeys | null {
  const file = join(dirname(entry), 'backends', 'redis', 'redis-keys.js');
  if (!existsSync(file)) return null;
  const { RedisKeys: Keys } = load(file) as { RedisKeys?: new (alias: string) => PoolKeys };
  if (typeof Keys !== 'function') return null;
  const keys = new Keys(THREADMILL_POOL_ALIAS);
  return typeof keys.queue === 'function' && typeof keys.running === 'function' ? keys : null;
}

/** The key layout a build without its own is counted in. */
export function currentPoolKeys(): PoolKeys {
  return new RedisKeys(THREADMILL_POOL_ALIAS);
}
