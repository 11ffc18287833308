import { ExitCode } from '../../core/exit-code';
import { exitCause, hardStopCause, wedgedCause } from '../worker.messages';
import type { ChildState } from './worker-pool.deps';

// What the pool makes of a child that closed, from what it knows of it.

/** Why it went, as the log and crash recovery name it: a hard stop, a kill for silence, or its exit. */
export function closeCause(
  state: ChildState,
  code: number | null,
  signal: NodeJS.Signals | null,
): string {
  if (state.hardStopped !== null) {
    return hardStopCause(state.hardStopped.id, state.hardStopped.reason);
  }
  return state.silentForMs === null ? exitCause(code, signal) : wedgedCause(state.silentForMs);
}

/**
 * Whether it found the store damaged: it said so as it exited, or it died
 * booting with ExitCode.StoreCorrupt (its backend refused the file). A task
 * cannot exit a child that is not ready yet, so that code is the command's.
 */
export function foundStoreDamaged(state: ChildState, code: number | null): boolean {
  return state.exitReason === 'storeCorrupt' || (!state.ready && code === ExitCode.StoreCorrupt);
}

/**
 * Whether its tasks go back to their queues rather than being ended as a
 * crash's. An urgent stop gives tasks back; so does a kill for silence while
 * the pool stops: those tasks were not given up on, only out of time. A hard
 * stop is the pool's own decision, not a crash: the others are released too.
 */
export function releasesTasks(
  state: ChildState,
  stopMode: 'none' | 'graceful' | 'urgent',
): boolean {
  return (
    stopMode === 'urgent' ||
    state.hardStopped !== null ||
    (state.silentForMs !== null && stopMode !== 'none')
  );
}
