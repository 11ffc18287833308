import { CANCEL_ANSWER_WITHIN_MS } from '../core/cancel-delivery';
import type { CancelResult } from '../core/ports/control-store.port';
import type { TaskBackend } from '../core/task-backend.interface';
import { TaskResultStatus, FINISHED_STATUSES } from '../core/task-result-status.enum';
import { sleep } from '../utils/sleep.util';
import { decideCancel } from '../lifecycle/cancel-decision';

/** First pause between two looks at a leased task's cancel; it doubles up to the longest. */
const FIRST_LOOK_MS = 5;
const LONGEST_LOOK_MS = 100;

/**
 * Cancels task `id` and, for a leased one, waits for the pool that holds it
 * (see cancel-delivery): the answer is `cancelled` once the holder ended it
 * unstarted (or it is CANCELLED by then), `already-final` when it finished
 * otherwise first, `requested` once the holder aborted its running attempt,
 * or when `withinMs` (CANCEL_ANSWER_WITHIN_MS, longer than the holder's
 * CANCEL_VIEW_FRESH_MS) passed without a word from it. A task the
 * holder gave back meanwhile (a stop, a pause) is cancelled where it waits.
 * A lease without a pool has nobody to wait for: `requested` at once.
 */
export async function holderAnswer(
  backend: TaskBackend,
  id: string,
  withinMs = CANCEL_ANSWER_WITHIN_MS,
): Promise<CancelResult> {
  // A monotonic clock: a step of the wall clock must not cut the wait short.
  const deadline = performance.now() + withinMs;
  let answer = await backend.control.cancel(id, decideCancel);
  for (let pauseMs = FIRST_LOOK_MS; answer.outcome === 'requested' && answer.holder;) {
    const holder = answer.holder;
    if (performance.now() >= deadline) return answer;
    await sleep(Math.min(pauseMs, Math.max(1, deadline - performance.now())));
    pauseMs = Math.min(pauseMs * 2, LONGEST_LOOK_MS);
    const record = await backend.tasks.getResult(id);
    if (FINISHED_STATUSES.has(record.status)) {
      const ended = record.status === TaskResultStatus.CANCELLED ? 'cancelled' : 'already-final';
      return { outcome: ended, record };
    }
    if (record.status !== TaskResultStatus.RUNNING) {
      answer = await backend.control.cancel(id, decideCancel);
      continue;
    }
    const pending = await backend.control.cancelRequests(holder);
    if (!pending.some((request) => request.id === id)) return { outcome: 'requested', record };
    answer = { ...answer, record };
  }
  return answer;
}
