/**
 * What the outbox of a Redis alias says: a refused write, the relay's
 * failures and takeovers. Each names the alias and what to do.
 */
import { shown } from '../../core/shown';

export const outboxIdTaken = (alias: string, ids: readonly string[]): string =>
  `Backend ${shown(alias)}: the outbox already holds a task with id ${ids.map(shown).join(', ')}, ` +
  `not yet moved to Redis, so nothing of this enqueue was written. Enqueue under another id, ` +
  `or leave \`id\` out to get a new one.`;

export const outboxMoveTimeout = (alias: string, id: string, waitedMs: number): string =>
  `Task ${shown(id)} of backend ${shown(alias)} was not moved from the outbox into Redis within ` +
  `${waitedMs} ms, so who holds its unique key is not known yet: check that its transaction ` +
  `committed and that a relay runs (health's \`outbox\`), then call \`settled()\` again.`;

export const outboxRelayFailed = (alias: string, reason: string, retryMs: number): string =>
  `The outbox relay of backend ${shown(alias)} failed (${reason}); the tasks waiting stay in ` +
  `the outbox and are moved once it works again, tried again in ${retryMs} ms. Check that the ` +
  `app's Postgres and Redis are reachable.`;

export const outboxRowsParked = (
  alias: string,
  rows: readonly { id: string; reason: string }[],
): string =>
  `The outbox relay of backend ${shown(alias)} set ${rows.length} task(s) aside that it can never ` +
  `move as written (${rows.map((row) => `${shown(row.id)}: ${row.reason}`).join('; ')}); the ` +
  `tasks behind them move on. Fix the cause (add the queue to the alias), then clear their ` +
  `\`parked\` column to move them, or delete their rows.`;

export const outboxMoveRefused = (alias: string, count: number): string =>
  `The outbox relay of backend ${shown(alias)} found ${count} task(s) already in Redis (moved ` +
  `before, or their id taken by another enqueue): their rows were deleted without a second move.`;

export const outboxRelayFenced = (alias: string, generation: number, newer: number): string =>
  `The outbox relay of backend ${shown(alias)} was replaced by a newer one: its move carried ` +
  `generation ${generation}, and a relay that took the lock since has generation ${newer} (this ` +
  `one's lock connection was lost, or its process was paused). Redis stored nothing of the move; ` +
  `this process dropped its lock and tries for it again. If it recurs, look for what pauses the ` +
  `process (long GC pauses, CPU starvation, SIGSTOP) or drops its Postgres connection.`;
