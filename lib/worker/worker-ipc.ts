/**
 * The IPC protocol between the pool's main process and its children (Node's
 * fork channel, JSON-serialized). It is small on purpose: the main process
 * only needs to know which task ids each child holds, so it can recover them
 * the moment the child dies, and why a child exits, so it knows whether to
 * replace it.
 */

/** Tasks a child stored (acknowledged, or sent back for a retry): it holds them no more. */
export interface Settled {
  readonly ids: readonly string[];
  /** Of them, how many were stored SUCCESSFUL and how many FAILED (a retried one is neither). */
  readonly succeeded: number;
  readonly failed: number;
}

/** Why a child ended its work by itself. */
export type ChildExitReason = 'recycled' | 'drained' | 'stopped';

export type ChildMessage =
  /** The child booted its application context and starts acquiring. */
  | { readonly kind: 'ready' }
  /**
   * The child now holds these tasks (RUNNING under its lease); sent before any
   * of them starts. `settled` is what the same call stored, so a busy child
   * sends one message per batch, not two.
   */
  | { readonly kind: 'acquired'; readonly ids: readonly string[]; readonly settled?: Settled }
  /** These tasks are acknowledged (or were found already reaped): the child holds them no more. */
  | ({ readonly kind: 'settled' } & Settled)
  /** These unfinished tasks went back to their ready queue on an urgent shutdown. */
  | { readonly kind: 'released'; readonly ids: readonly string[] }
  /** The child is about to exit on its own, for this reason. */
  | { readonly kind: 'exiting'; readonly reason: ChildExitReason };

export type ParentMessage =
  /** Stop acquiring; finish (or, when urgent, release) what is held, then exit. */
  { readonly kind: 'stop'; readonly urgent: boolean };

const CHILD_KINDS: ReadonlySet<string> = new Set([
  'ready',
  'acquired',
  'settled',
  'released',
  'exiting',
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
