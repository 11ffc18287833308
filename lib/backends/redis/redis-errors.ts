import { BackendCommandError } from '../../core/errors/backend-command.error';
import { BackendUnavailableError } from '../../core/errors/backend-unavailable.error';
import { StoreFullError } from '../../core/errors/store-full.error';
import { ThreadmillError } from '../../core/errors/threadmill.error';
import { redisRefusingForNow } from '../../core/store.messages';
import { backendCommandRefused, redisUnavailable, storeFull } from '../../core/threadmill.messages';
import { scriptNamed } from './redis-script-sources';

/**
 * How a Redis call failed, which decides what the caller is told:
 * - `full`: Redis refused a write because it is at maxmemory (StoreFullError);
 * - `refused`: Redis answered with another error of its own (BackendCommandError);
 * - `refusedForNow`: Redis refused the command before running it, for a
 *   reason that clears by itself (BackendUnavailableError, retryable);
 * - `unreachable`: no answer came (BackendUnavailableError); `mayHaveRun`
 *   when the command may have reached Redis and run, its reply lost;
 * - `bug`: not a Redis or connection failure at all (a TypeError, a stack
 *   overflow): thrown on unchanged, so it shows as what it is.
 */
export type RedisFailure =
  | { kind: 'full' | 'refused' | 'refusedForNow'; command: string; reply: string }
  | { kind: 'unreachable'; reason: string; mayHaveRun: boolean }
  | { kind: 'bug' };

/**
 * Error replies that refuse a command before it runs for a reason that
 * clears by itself: Redis loading its data after a restart, busy with a long
 * script, unable to write its persistence files (MISCONF: a full disk, then
 * its next good save), a replica during a failover (READONLY, MASTERDOWN), a
 * cluster resharding or failing over, too few replicas answering. The same
 * call succeeds once that passes, so the caller may retry it unchanged.
 */
const REFUSED_FOR_NOW = [
  'LOADING',
  'BUSY',
  'MISCONF',
  'READONLY',
  'MASTERDOWN',
  'CLUSTERDOWN',
  'TRYAGAIN',
  'NOREPLICAS',
];

/** Error replies that mean Redis will not serve us (credentials): as good as unreachable. */
const UNAVAILABLE_REPLIES = ['NOAUTH', 'WRONGPASS'];

/** What JavaScript throws for a mistake in code, never for a connection. */
const BUG_NAMES: ReadonlySet<string> = new Set([
  'TypeError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'EvalError',
  'URIError',
]);

/** The error classes of ioredis (and redis-errors) for connection trouble, by name. */
const CONNECTION_ERROR_NAMES: ReadonlySet<string> = new Set([
  'Error',
  'RedisError',
  'AbortError',
  'InterruptError',
  'ParserError',
  'MaxRetriesPerRequestError',
  'ClusterAllFailedError',
]);

/**
 * Connection failures that reject a command before it was written: it never
 * ran. Every other connection failure (a command timeout, a connection lost
 * with the reply outstanding, a wait for a connection that gave up while the
 * command stayed queued) leaves its outcome unknown.
 */
const NEVER_SENT = [
  /^Reached the max retries per request limit/,
  /^Connection is closed\.$/,
  /enableOfflineQueue options is false$/,
  /^None of startup nodes is available$/,
  /^Failed to refresh slots cache\.$/,
  /^Too many Cluster redirections\./,
  /^the backend is closed$/,
];
const NEVER_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Sorts what a Redis call (ioredis, or our own connection handling) rejected with. */
export function classifyRedisFailure(error: unknown): RedisFailure {
  if (typeof error !== 'object' || error === null) return { kind: 'bug' };
  const { name, message, code } = error as { name?: unknown; message?: unknown; code?: unknown };
  if (typeof message !== 'string' || typeof name !== 'string') return { kind: 'bug' };
  // By name, not instanceof: a client handed in may come with its own copy of redis-errors.
  if (name === 'ReplyError') {
    if (message.startsWith('OOM '))
      return { kind: 'full', command: commandOf(error), reply: message };
    // The space: BUSYKEY and BUSYGROUP are refusals of that one command, for good.
    if (REFUSED_FOR_NOW.some((word) => message.startsWith(`${word} `))) {
      return { kind: 'refusedForNow', command: commandOf(error), reply: message };
    }
    if (UNAVAILABLE_REPLIES.some((word) => message.startsWith(`${word} `))) {
      return { kind: 'unreachable', reason: message, mayHaveRun: false };
    }
    return { kind: 'refused', command: commandOf(error), reply: message };
  }
  if (BUG_NAMES.has(name)) return { kind: 'bug' };
  // Socket and TLS errors carry a code (ECONNRESET, DEPTH_ZERO_SELF_SIGNED_CERT, ...).
  if (typeof code === 'string') {
    return { kind: 'unreachable', reason: message, mayHaveRun: !NEVER_SENT_CODES.has(code) };
  }
  if (!CONNECTION_ERROR_NAMES.has(name)) return { kind: 'bug' };
  return {
    kind: 'unreachable',
    reason: message,
    mayHaveRun: !NEVER_SENT.some((pattern) => pattern.test(message)),
  };
}

/** What an error reply was the answer to: one of our scripts by file name, or the command. */
function commandOf(error: object): string {
  const command = (error as { command?: { name?: unknown; args?: unknown[] } }).command;
  const name = typeof command?.name === 'string' ? command.name : '';
  if (name === 'evalsha' || name === 'eval') {
    const first = command?.args?.[0];
    return (typeof first === 'string' && scriptNamed(first)) || 'a Lua script';
  }
  return name === '' ? 'a command' : name.toUpperCase();
}

/**
 * The error for a write that may have run with its reply lost (instead of
 * BackendUnavailableError); gets why the reply was lost, masked, and the cause.
 */
export type LostReply = (reason: string, cause: unknown) => ThreadmillError;

/** Where a failure happened, for its message: the alias and its target, secrets masked. */
export interface FailureContext {
  alias: string;
  maskedTarget: string;
  mask(text: string): string;
  /** Why the connection last failed, when it is down ("Max retries reached" says little). */
  lastConnectionError: string | null;
}

/**
 * The error a caller sees for a failed Redis call: ours pass through, a bug
 * is returned unchanged, the rest become StoreFullError, BackendCommandError
 * or BackendUnavailableError (a refusal that clears by itself, or no answer;
 * or what `lostReply` makes of a call that may have run), each with its
 * cause's text, secrets masked.
 */
export function redisCallError(
  error: unknown,
  context: FailureContext,
  lostReply?: LostReply,
): unknown {
  if (error instanceof ThreadmillError) return error;
  const failure = classifyRedisFailure(error);
  switch (failure.kind) {
    case 'bug':
      return error;
    case 'full':
      return new StoreFullError(
        storeFull(
          context.alias,
          context.maskedTarget,
          failure.command,
          context.mask(failure.reply),
        ),
        { cause: error },
      );
    case 'refused': {
      const reply = context.mask(failure.reply);
      return new BackendCommandError(
        backendCommandRefused(context.alias, failure.command, reply),
        failure.command,
        reply,
        { cause: error },
      );
    }
    case 'refusedForNow':
      // Never a lost reply: Redis refused it before running it.
      return new BackendUnavailableError(
        redisRefusingForNow(
          context.alias,
          context.maskedTarget,
          failure.command,
          context.mask(failure.reply),
        ),
        { cause: error },
      );
    case 'unreachable': {
      let reason = context.mask(failure.reason);
      const last = context.lastConnectionError;
      if (last && !reason.includes(last)) {
        reason = `${reason.replace(/\.+$/, '')} (last connection error: ${last})`;
      }
      if (failure.mayHaveRun && lostReply) return lostReply(reason, error);
      return new BackendUnavailableError(
        redisUnavailable(context.alias, context.maskedTarget, reason),
        { cause: error },
      );
    }
  }
}
