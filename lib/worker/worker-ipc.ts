import type { MetricsSnapshot } from '../metrics/prom-client.loader';

/**
 * The IPC protocol between the pool's main process and its children (Node's
 * fork channel, JSON-serialized). It is small on purpose, and quiet: which
 * task ids a child holds goes to its HeldJournal (a file), not through here,
 * so a busy child does not wake the main process for every batch. What is
 * left is readiness, progress counts for the pool's summary, and why a child
 * exits, so the main process knows whether to replace it, and a liveness beat
 * a second, by which the main process tells a child whose event loop stopped.
 * With metrics on, a child's metrics ride with its progress reports.
 */

/** Tasks a child stored since its last report: how many SUCCESSFUL and how many FAILED (a retried one is neither). */
export interface Settled {
  readonly succeeded: number;
  readonly failed: number;
}

/** Why a child ended its work by itself (`storeCorrupt`: it found the store damaged). */
export type ChildExitReason = 'recycled' | 'drained' | 'stopped' | 'storeCorrupt';

export type ChildMessage =
  /** The child booted its application context and starts acquiring. */
  | { readonly kind: 'ready' }
  /** Progress since the last report, sent at most every few hundred ms and before exiting. */
  | ({ readonly kind: 'settled' } & Settled)
  /** With metrics on: everything the child counted so far (cumulative), sent with its progress reports. */
  | { readonly kind: 'metrics'; readonly snapshot: MetricsSnapshot }
  /** The child is about to exit on its own, for this reason. */
  | { readonly kind: 'exiting'; readonly reason: ChildExitReason }
  /**
   * The child's event loop answers. `blockingMs`: the longest a task it runs
   * declared it may block that loop (0 for none), so the pool waits that long.
   */
  | { readonly kind: 'alive'; readonly blockingMs: number }
  /**
   * The child's journal could not be written: after its death the pool cannot
   * tell a lease it never received from one it started.
   */
  | { readonly kind: 'journalFailed' }
  /**
   * A task (`id`) still runs past what it may (HardStopReason): the pool
   * kills this child on purpose, stores the task as the reason says and
   * releases the others it held.
   */
  | ({ readonly kind: 'hardStop' } & HardStop);

/**
 * Why a child is stopped for one task: `cancel`, a cancelled task past its
 * `cancel.hardStopAfterMs` (it ends CANCELLED); `timeout`, a task past its
 * `timeoutMs` and the grace after it (its attempt fails with TaskTimeoutError).
 */
export type HardStopReason = 'cancel' | 'timeout';

/** The task a child is stopped for, and why. */
export interface HardStop {
  readonly id: string;
  readonly reason: HardStopReason;
}

export type ParentMessage =
  /** Stop acquiring; finish (or, when urgent, release) what is held, then exit. */
  { readonly kind: 'stop'; readonly urgent: boolean };

/** The child's side of the IPC channel; a send resolves once the message left the process. */
export interface ParentChannel {
  send(message: ChildMessage): Promise<void>;
}

const CHILD_KINDS: ReadonlySet<string> = new Set([
  'ready',
  'settled',
  'metrics',
  'exiting',
  'alive',
  'journalFailed',
  'hardStop',
]);

const hasKind = (value: unknown): value is { kind: unknown } =>
  typeof value === 'object' && value !== null && 'kind' in value;

/** A message from a child, or null for anything else on the channel (other code may use it too). */
export function asChildMessage(value: unknown): ChildMessage | null {
  return hasKind(value) && typeof value.kind === 'string' && CHILD_KINDS.has(value.kind)
    ? (value as ChildMessage)
    : null;
}

/** A message from the main process, or null for anything else on the channel. */
export function asParentMessage(value: unknown): ParentMessage | null {
  return hasKind(value) && value.kind === 'stop' ? (value as ParentMessage) : null;
}
