import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { RedisClient } from './redis-clients';

/** How many KEYS a script takes: a fixed count, or a fixed count per item (variadic). */
export interface ScriptKeyCount {
  /** KEYS before the per-item ones (all of them when the script is not variadic). */
  fixed: number;
  /** KEYS per item for a variadic script (the file name then has no suffix). */
  perItem?: number;
}

/** A Lua function file (`<name>.function.lua`) prepended to the scripts that use it. */
export type LuaFunctionName =
  | 'callInSlices'
  | 'callSkippingWrongType'
  | 'countEnqueued'
  | 'outboxFence'
  | 'publishLive'
  | 'storeClock'
  | 'storeFinished'
  | 'wakeReady';

/** One script: its file, key count, the functions it uses, and the script whose body follows its own. */
interface ScriptEntry {
  file: string;
  keys: ScriptKeyCount;
  uses?: readonly LuaFunctionName[];
  /**
   * A script whose body runs after this file's, in the same call: this file
   * prepares its arguments (moveOutboxed.lua takes out moves already made).
   */
  continues?: string;
  /**
   * A script whose body this file calls as `continued()` (defined before
   * this file's body, in the same call): this file prepares its arguments
   * and reads its reply (moveOutboxedUnique.lua records each move's outcome).
   */
  calls?: string;
}

/**
 * Every Lua script, with the key count its header documents. The file name
 * carries the fixed count as a suffix (`promoteDeferred-3.lua`); variadic
 * scripts have none. A unit test holds header, file name and this table in step.
 *
 * @internal
 */
export const REDIS_SCRIPTS = {
  enqueue: {
    file: 'enqueue.lua',
    keys: { fixed: 1, perItem: 4 },
    uses: ['storeClock', 'callInSlices', 'countEnqueued', 'publishLive'],
  },
  // The outbox relay's moves, fenced: each id once, then enqueue.lua's body on what is left.
  moveOutboxed: {
    file: 'moveOutboxed.lua',
    keys: { fixed: 2, perItem: 4 },
    uses: ['outboxFence', 'storeClock', 'callInSlices', 'countEnqueued', 'publishLive'],
    continues: 'enqueue.lua',
  },
  // The outbox relay's fenced moves of tasks with unique keys: each id once, decided by enqueueUnique.lua.
  moveOutboxedUnique: {
    file: 'moveOutboxedUnique.lua',
    keys: { fixed: 3, perItem: 4 },
    uses: ['outboxFence', 'storeClock', 'countEnqueued', 'publishLive'],
    calls: 'enqueueUnique.lua',
  },
  // A batch with any unique key; per item a queue (4 keys).
  enqueueUnique: {
    file: 'enqueueUnique.lua',
    keys: { fixed: 2, perItem: 4 },
    uses: ['storeClock', 'countEnqueued', 'publishLive'],
  },
  forgetFreeKeys: {
    file: 'forgetFreeKeys-1.lua',
    keys: { fixed: 1 },
    uses: ['callSkippingWrongType'],
  },
  // Per item: a queue (4 keys) and a group of finished records (2 keys).
  acquire: {
    file: 'acquire.lua',
    keys: { fixed: 4, perItem: 6 },
    uses: ['storeClock', 'callInSlices', 'callSkippingWrongType', 'storeFinished', 'publishLive'],
  },
  acknowledge: {
    file: 'acknowledge.lua',
    keys: { fixed: 0, perItem: 2 },
    uses: ['storeClock', 'callInSlices', 'callSkippingWrongType', 'storeFinished'],
  },
  retry: {
    file: 'retry.lua',
    keys: { fixed: 0, perItem: 5 },
    uses: ['storeClock', 'callSkippingWrongType'],
  },
  release: { file: 'release.lua', keys: { fixed: 0, perItem: 4 }, uses: ['callSkippingWrongType'] },
  promoteDeferred: {
    file: 'promoteDeferred-3.lua',
    keys: { fixed: 3 },
    uses: ['storeClock', 'callSkippingWrongType'],
  },
  forgetPool: { file: 'forgetPool-4.lua', keys: { fixed: 4 }, uses: ['storeClock'] },
  cancel: { file: 'cancel-5.lua', keys: { fixed: 5 }, uses: ['storeClock'] },
  retryFinished: { file: 'retryFinished-5.lua', keys: { fixed: 5 } },
  removeFinished: { file: 'removeFinished-3.lua', keys: { fixed: 3 } },
  // Per item: one progress entry (its running set and task hash).
  storeProgress: {
    file: 'storeProgress.lua',
    keys: { fixed: 0, perItem: 2 },
    uses: ['publishLive'],
  },
  resumeQueue: { file: 'resumeQueue-3.lua', keys: { fixed: 3 }, uses: ['wakeReady'] },
  storeQueueLimits: { file: 'storeQueueLimits-5.lua', keys: { fixed: 5 }, uses: ['wakeReady'] },
  beatPool: { file: 'beatPool-2.lua', keys: { fixed: 2 }, uses: ['storeClock'] },
  readPools: { file: 'readPools-2.lua', keys: { fixed: 2 }, uses: ['storeClock'] },
  listSegment: { file: 'listSegment-1.lua', keys: { fixed: 1 }, uses: ['storeClock'] },
  storeTime: { file: 'storeTime-1.lua', keys: { fixed: 1 }, uses: ['storeClock'] },
  claimRole: { file: 'claimRole-1.lua', keys: { fixed: 1 } },
  markListening: { file: 'markListening-1.lua', keys: { fixed: 1 } },
  markPass: { file: 'markPass-1.lua', keys: { fixed: 1 } },
  trimFinished: {
    file: 'trimFinished-1.lua',
    keys: { fixed: 1 },
    uses: ['storeClock', 'callSkippingWrongType'],
  },
  putSchedule: { file: 'putSchedule-2.lua', keys: { fixed: 2 } },
  removeSchedule: { file: 'removeSchedule-3.lua', keys: { fixed: 3 } },
  readSchedules: { file: 'readSchedules-3.lua', keys: { fixed: 3 } },
  dueSchedules: { file: 'dueSchedules-3.lua', keys: { fixed: 3 }, uses: ['storeClock'] },
  advanceSchedule: { file: 'advanceSchedule-2.lua', keys: { fixed: 2 } },
} as const satisfies Record<string, ScriptEntry>;

export type RedisScriptName = keyof typeof REDIS_SCRIPTS;

/** Where the .lua files are: next to this file both in lib/ (ts-jest) and in dist/ (nest-cli assets). */
export const LUA_DIR = join(__dirname, 'lua');

/** The script each SHA1 names (sha1 of the source as sent), for errors that name the script. */
const scriptsBySha = new Map<string, string>();

/** Which of our scripts an EVALSHA of `sha` (or an EVAL of that source) ran; null for none of ours. */
export function scriptNamed(shaOrSource: string): string | null {
  const sha =
    shaOrSource.length === 40 ? shaOrSource : createHash('sha1').update(shaOrSource).digest('hex');
  return scriptsBySha.get(sha) ?? null;
}

const luaSources = new Map<string, string>();

/** A script's source, read once per process (each blocking connection defines the scripts again). */
function readLua(file: string): string {
  let source = luaSources.get(file);
  if (source === undefined) {
    source = readFileSync(join(LUA_DIR, file), 'utf8');
    luaSources.set(file, source);
  }
  return source;
}

/**
 * What `defineCommand` is given for a script: its file with the functions it
 * uses prepended, after its #!lua line (Redis reads the script's flags from
 * that line, so it must stay first), and its fixed key count (none for a
 * variadic script, whose call passes its key count first). The source's
 * SHA1 is noted for scriptNamed.
 */
export function scriptSource(name: RedisScriptName): { lua: string; numberOfKeys?: number } {
  const script: ScriptEntry = REDIS_SCRIPTS[name];
  const { file, keys } = script;
  const functions = (script.uses ?? []).map((fn) => readLua(`${fn}.function.lua`));
  const { shebang, body } = splitShebang(readLua(file));
  const continued =
    script.continues === undefined ? [] : [splitShebang(readLua(script.continues)).body];
  const called =
    script.calls === undefined
      ? []
      : [`local function continued()\n${splitShebang(readLua(script.calls)).body}\nend`];
  const lua = [
    ...(shebang === null ? [] : [shebang]),
    ...functions,
    ...called,
    body,
    ...continued,
  ].join('\n');
  scriptsBySha.set(createHash('sha1').update(lua).digest('hex'), file);
  return 'perItem' in keys ? { lua } : { lua, numberOfKeys: keys.fixed };
}

/** A script's #!lua line (null when it has none) and the rest. */
function splitShebang(source: string): { shebang: string | null; body: string } {
  if (!source.startsWith('#!')) return { shebang: null, body: source };
  const firstLineEnd = source.indexOf('\n');
  return { shebang: source.slice(0, firstLineEnd), body: source.slice(firstLineEnd + 1) };
}

// ioredis adds a method per defineCommand; this is its shape. Arguments go
// over as one array (ioredis flattens it), never spread: spreading a bulk
// enqueue's hundred thousand arguments into a call overflows the stack.
// A variadic script's array starts with its key count; a fixed one's, with its keys.
export type ScriptCall = (args: (string | number)[]) => Promise<unknown>;

/**
 * Every script registered on `client` with `defineCommand` (once per client:
 * ioredis sends EVAL the first time on each socket and EVALSHA after, and
 * resends on NOSCRIPT, so they survive a Redis restart or SCRIPT FLUSH), and
 * the call of each.
 */
export function defineScriptCalls(client: RedisClient): Record<RedisScriptName, ScriptCall> {
  const calls: Partial<Record<RedisScriptName, ScriptCall>> = {};
  for (const name of Object.keys(REDIS_SCRIPTS) as RedisScriptName[]) {
    calls[name] = defineScriptCall(client, name);
  }
  return calls as Record<RedisScriptName, ScriptCall>;
}

function defineScriptCall(client: RedisClient, name: RedisScriptName): ScriptCall {
  // Namespaced so it cannot clash with a command a user defined on a shared client.
  const command = `threadmill_${name}`;
  if (typeof Reflect.get(client, command) !== 'function') {
    const { lua, numberOfKeys } = scriptSource(name);
    client.defineCommand(command, numberOfKeys === undefined ? { lua } : { lua, numberOfKeys });
  }
  const call = Reflect.get(client, command) as ScriptCall;
  return call.bind(client);
}
