import { BackendUnavailableError } from '../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../lib/core/errors/enqueue-outcome-unknown.error';
import { TaskAlreadyExistsError } from '../../lib/core/errors/task-already-exists.error';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import { chaosRecord } from './chaos-harness';

/** A caller's pause between its tasks, and before it enqueues again with the same id. */
const CALLER_PAUSE_MS = 100;
const RETRY_PAUSE_MS = 250;
/** Tries of one id at most: an outage of 20 s with a 10 s command timeout costs two or three. */
const MAX_ATTEMPTS = 8;
/** Ids per caller at most: bounded in count as well as by `stop`. */
const MAX_PER_CALLER = 600;

/**
 * What became of one id: 'stored' (the first try), 'stored by a retry',
 * 'already stored' (a retry found it), 'another task', 'gave up', or the error that ended it.
 */
export type Outcome = string;

/** Request handlers enqueuing through a producer backend, while a scenario disturbs the path. */
export interface Producer {
  /** Every id a caller enqueued, whatever became of it. */
  readonly ids: string[];
  readonly outcomes: Map<string, Outcome>;
  /** Each failed enqueue call: its error, whether it carried its id, and when it was sent. */
  readonly failures: { name: string; carriedId: boolean; sentAt: number; ms: number }[];
  /** The longest any one enqueue call took, whatever its outcome. */
  slowestMs(): number;
  /** No new ids; resolves once every caller has settled the id it was on. */
  stop(): Promise<void>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `callers` loops, each enqueuing one task after another through `producer`.
 * An enqueue that threw EnqueueOutcomeUnknownError or BackendUnavailableError
 * is sent again with the same id; TaskAlreadyExistsError then means an
 * earlier try stored it.
 */
export function startProducer(
  producer: Pick<TaskBackend, 'tasks'>,
  alias: string,
  journal: string,
  { callers, taskMs }: { callers: number; taskMs: number },
): Producer {
  const ids: string[] = [];
  const outcomes = new Map<string, Outcome>();
  const failures: Producer['failures'] = [];
  let producing = true;
  let slowest = 0;
  const enqueueOnce = async (record: ReturnType<typeof chaosRecord>) => {
    const { id } = record;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const sentAt = Date.now();
      try {
        await producer.tasks.enqueue(record).finally(() => {
          slowest = Math.max(slowest, Date.now() - sentAt);
        });
        outcomes.set(id, attempt === 1 ? 'stored' : 'stored by a retry');
        return;
      } catch (error) {
        if (error instanceof TaskAlreadyExistsError && attempt > 1) {
          outcomes.set(id, error.existing.id === id ? 'already stored' : 'another task');
          return;
        }
        const carriedId = error instanceof EnqueueOutcomeUnknownError && error.ids.join() === id;
        const { name, message } = error as Error;
        failures.push({ name, carriedId, sentAt, ms: Date.now() - sentAt });
        const retryable =
          error instanceof EnqueueOutcomeUnknownError || error instanceof BackendUnavailableError;
        if (!retryable) {
          outcomes.set(id, `${name}: ${message}`);
          return;
        }
        await pause(RETRY_PAUSE_MS);
      }
    }
    outcomes.set(id, 'gave up');
  };
  const caller = async () => {
    for (let n = 0; n < MAX_PER_CALLER && producing; n++) {
      const record = chaosRecord(alias, journal, taskMs);
      ids.push(record.id);
      await enqueueOnce(record);
      await pause(CALLER_PAUSE_MS);
    }
  };
  const running = Promise.all(Array.from({ length: callers }, caller));
  return {
    ids,
    outcomes,
    failures,
    slowestMs: () => slowest,
    async stop() {
      producing = false;
      await running;
    },
  };
}
