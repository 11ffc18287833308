import { setImmediate as nextTurn } from 'node:timers/promises';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { CallRecord } from './interleaving-replay';

/** The backend methods whose calls take turns: every one that reads or changes a task. */
/** The store calls that take turns, by part and method, each with the name the model replays. */
const GATED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  tasks: { enqueue: 'enqueue', getResult: 'getResult' },
  leases: { acquire: 'acquire', acknowledge: 'acknowledge' },
  control: {
    cancel: 'cancel',
    retryFinished: 'retryFinished',
    removeFinished: 'removeFinished',
    pauseQueue: 'pauseQueue',
    resumeQueue: 'resumeQueue',
    cancelRequests: 'cancelRequests',
    dropCancelRequests: 'dropCancelRequests',
  },
  pools: { beat: 'beatPool' },
};

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
        const methods = typeof property === 'string' ? GATED[property] : undefined;
        if (methods === undefined || typeof value !== 'object' || value === null) return value;
        return new Proxy(value, {
          get: (part, name, partReceiver) => {
            const method: unknown = Reflect.get(part, name, partReceiver);
            const modelName = typeof name === 'string' ? methods[name] : undefined;
            if (modelName === undefined || typeof method !== 'function') return method;
            return (...args: unknown[]) =>
              this.call(caller, modelName, () =>
                (method as (...a: unknown[]) => Promise<unknown>).apply(part, args),
              );
          },
        });
      },
    });
  }

  /** Runs `call` as one store call of `caller`, named `method`, when its turn comes. */
  call<T>(caller: number, method: string, call: () => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      const record = { caller, operation: this.operation[caller], method };
      const go = () => call().then(resolve, reject);
      this.waiting.push({ record, go });
    });
  }

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
