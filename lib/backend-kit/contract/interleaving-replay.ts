/**
 * Replays the calls a store ran, in their order, on the sequential model of
 * interleaving-model.ts: the check of the interleaving contract.
 */
import type { Model, ModelTask, Step } from './interleaving-model';

/** An operation as the model replays it. */
export interface ModelOperation {
  readonly label: string;
  readonly steps: readonly Step[];
  /** What the store answered. */
  readonly outcome: string;
}

/** A store call as it ran: which caller's which operation, by which method. */
export interface CallRecord {
  readonly caller: number;
  readonly operation: number;
  readonly method: string;
}

/**
 * Replays `calls` (in the order the store ran them) on `model`: each call
 * is its operation's next step, until that operation ended (later calls of
 * it, such as a read only to report, change nothing). Returns the model
 * after them, or why the store's answers or calls are not the model's.
 */
export function replay(
  model: Model,
  operations: readonly (readonly ModelOperation[])[],
  calls: readonly CallRecord[],
): Model | string {
  const progress = operations.map((ops) =>
    ops.map(() => ({
      step: 0,
      read: undefined as ModelTask | undefined,
      outcome: undefined as string | undefined,
    })),
  );
  let now = model;
  for (const { caller, operation, method } of calls) {
    const op = operations[caller][operation];
    const state = progress[caller][operation];
    if (state.outcome !== undefined) continue;
    const step = op.steps[state.step];
    if (step?.method !== method)
      return `${op.label}: the store was called with ${method}, the model expects ${step?.method ?? 'nothing more'}`;
    const result = step.apply(now, state.read);
    now = result.model;
    state.read = result.read;
    state.outcome = result.outcome;
    state.step++;
  }
  for (const [caller, ops] of operations.entries()) {
    for (const [i, op] of ops.entries()) {
      const expected = progress[caller][i].outcome;
      // An operation that found nothing to act on made no call: nothing to check.
      if (op.steps.length > 0 && expected !== op.outcome) {
        return `${op.label}: the store answered ${op.outcome}, the model ${expected ?? 'nothing'}`;
      }
    }
  }
  return now;
}
