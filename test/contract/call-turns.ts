import { setImmediate as nextTurn } from 'node:timers/promises';

import type { TaskBackend } from '../../lib/core';
import type { CallRecord } from './interleaving-model';

/** The backend methods whose calls take turns: every one that reads or changes a task. */
const GATED = new Set([
  'enqueue',
  'acquire',
  'acknowledge',
  'cancel',
  'getResult',
  'retryFinished',
  'removeFinished',
  'pauseQueue',
  'resumeQueue',
  'cancelRequests',
  'dropCancelRequests',
  'beatPool',
  'maintenancePass',
]);

/** Longest the callers may take to reach their next store call (a caller may wait on a timer). */
const MOST_WAIT_MS = 5_000;

interface Waiting {
  readonly record: CallRecord;
  readonly go: () => Promise<void>;
}

/** A caller: its operations, run one after the other, told which operation each call belongs to. */
export type TurnCaller<T> = (operationStarts: (operation: number) => void) => Promise<T>;

/**
 * Runs several callers at once with their store calls one at a time: once
 * every caller waits on a call (or has finished), the next choice picks
 * which call runs, to its end, before any other. So a random list of
 * choices is a random interleaving of the callers' calls, and `calls` is
 * that very order, for the model to replay.
 */
export class CallTurns {
  private waiting: Waiting[] = [];
  private next = 0;
  private operation: number[] = [];
  calls: CallRecord[] = [];

  constructor(private readonly choices: readonly number[]) {}

  /** `backend` as caller `caller` sees it: each gated call waits for its turn. */
  gate(backend: TaskBackend, caller: number): TaskBackend {
    return new Proxy(backend, {
      get: (target, property, receiver) => {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof property !== 'string' || !GATED.has(property) || typeof value !== 'function') {
          return value;
        }
        return (...args: unknown[]) =>
          new Promise((resolve, reject) => {
            const record = { caller, operation: this.operation[caller], method: property };
            const go = () =>
              (value as (...a: unknown[]) => Promise<unknown>)
                .apply(target, args)
                .then(resolve, reject);
            this.waiting.push({ record, go });
          });
      },
    });
  }

  /** Runs `callers` to their end; resolves to what each returned, in order. */
  async run<T>(callers: readonly TurnCaller<T>[]): Promise<T[]> {
    this.calls = [];
    this.operation = callers.map(() => 0);
    let finished = 0;
    const results = callers.map((caller, i) =>
      caller((operation) => (this.operation[i] = operation)).finally(() => finished++),
    );
    // Settles whatever way the callers end: a failed call fails its caller, and so the run.
    const all = Promise.all(results);
    all.catch(() => undefined);
    for (;;) {
      const since = Date.now();
      while (this.waiting.length + finished < callers.length) {
        if (Date.now() - since > MOST_WAIT_MS) {
          throw new Error('a caller neither called the store nor finished');
        }
        await nextTurn();
      }
      if (this.waiting.length === 0) break;
      const choice = this.choices[this.next++ % Math.max(1, this.choices.length)] ?? 0;
      const [picked] = this.waiting.splice(choice % this.waiting.length, 1);
      this.calls.push(picked.record);
      await picked.go();
    }
    return all;
  }
}
