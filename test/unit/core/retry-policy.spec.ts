import { allowedAttempts, backoffDelay, retryPolicyProblem } from '../../../lib/core/retry-policy';
import { failedAttempt, nextAttempt } from '../../../lib/lifecycle/retry-policy';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';

const error = { className: 'Error', traceback: 'Error: boom' };

/** A RUNNING record after `attempts` acquires, with this retry policy. */
function running(attempts: number, task: Partial<TaskRecord['task']> = {}): TaskRecord {
  return {
    id: 'id-1',
    task: { name: 't', queue: 'default', priority: 0, runAfter: null, backend: 'b', ...task },
    status: TaskResultStatus.RUNNING,
    enqueuedAt: new Date(0),
    startedAt: new Date(1),
    finishedAt: null,
    lastAttemptedAt: new Date(2),
    args: [],
    errors: [],
    workerIds: Array.from({ length: attempts }, (_, i) => `h:1-${i}`),
  };
}

describe('retry policy', () => {
  it('records an attempt ended by a throw as FAILED, the thrown value appended to its errors', () => {
    const now = new Date(5);
    const record = { ...running(1), errors: [error] };
    const failed = failedAttempt(record, new TypeError('bad input'), now);
    expect(failed.status).toBe(TaskResultStatus.FAILED);
    expect(failed.finishedAt).toBe(now);
    expect(failed.errors).toEqual([error, expect.objectContaining({ className: 'TypeError' })]);
    expect('returnValue' in failed).toBe(false);
    expect(record.errors).toEqual([error]);
  });

  const now = new Date(1_000_000);

  describe('nextAttempt', () => {
    it('fails a task without retries at once, as before retries existed', () => {
      const next = nextAttempt(running(1), error, now);
      expect(next).toMatchObject({ status: TaskResultStatus.FAILED, finishedAt: now });
      expect(next.errors).toEqual([error]);
    });

    it('sends a task with attempts left back, due after its backoff, keeping errors and workers', () => {
      const record = running(1, {
        retries: 2,
        backoff: { type: 'fixed', delayMs: 500, jitter: false },
      });
      const next = nextAttempt(record, error, now);
      expect(next.status).toBe(TaskResultStatus.READY);
      expect(next.finishedAt).toBeNull();
      expect(next.task.runAfter).toEqual(new Date(now.getTime() + 500));
      expect(next.errors).toEqual([error]);
      expect(next.workerIds).toEqual(record.workerIds);
    });

    it('fails after the last allowed attempt', () => {
      const record = running(3, { retries: 2 });
      expect(nextAttempt(record, error, now).status).toBe(TaskResultStatus.FAILED);
    });

    it('keeps an error the record already carries when none is passed, and drops a return value', () => {
      const failed = { ...running(1, { retries: 1 }), errors: [error], returnValue: 1 };
      const next = nextAttempt(failed, null, now);
      expect(next.errors).toEqual([error]);
      expect('returnValue' in next).toBe(false);
    });

    it('keeps the progress a failed record carries for its final outcome, never for a retry', () => {
      const last = nextAttempt({ ...running(1), progress: { done: 3 } }, null, now);
      expect(last).toMatchObject({ status: TaskResultStatus.FAILED, progress: { done: 3 } });
      const retry = nextAttempt({ ...running(1, { retries: 1 }), progress: 0.5 }, null, now);
      expect(retry.status).toBe(TaskResultStatus.READY);
      expect('progress' in retry).toBe(false);
      expect('progress' in nextAttempt(running(1), error, now)).toBe(false);
    });

    it('treats a nonsense stored retries value as none', () => {
      const record = running(1, { retries: 'many' as unknown as number });
      expect(allowedAttempts(record.task)).toBe(1);
      expect(nextAttempt(record, error, now).status).toBe(TaskResultStatus.FAILED);
    });
  });

  describe('backoffDelay', () => {
    it('doubles an exponential wait per retry up to its ceiling', () => {
      const backoff = {
        type: 'exponential',
        delayMs: 100,
        maxDelayMs: 500,
        jitter: false,
      } as const;
      expect([1, 2, 3, 4, 10].map((n) => backoffDelay(backoff, n))).toEqual([
        100, 200, 400, 500, 500,
      ]);
    });

    it('keeps a fixed wait', () => {
      const backoff = { type: 'fixed', delayMs: 300, jitter: false } as const;
      expect([1, 5].map((n) => backoffDelay(backoff, n))).toEqual([300, 300]);
    });

    it('draws a jittered wait from the upper half', () => {
      const backoff = { type: 'fixed', delayMs: 1000 } as const;
      expect(backoffDelay(backoff, 1, () => 0)).toBe(500);
      expect(backoffDelay(backoff, 1, () => 0.999)).toBe(1000);
    });

    it('defaults to exponential from 1 s with jitter', () => {
      expect(backoffDelay(undefined, 3, () => 1 - Number.EPSILON)).toBe(4000);
      expect(backoffDelay(undefined, 3, () => 0)).toBe(2000);
    });
  });

  describe('retryPolicyProblem', () => {
    it('accepts no policy and a complete one', () => {
      expect(retryPolicyProblem(undefined, undefined)).toBeNull();
      expect(
        retryPolicyProblem(5, { type: 'exponential', delayMs: 10, maxDelayMs: 10, jitter: false }),
      ).toBeNull();
    });

    it.each([
      [-1, undefined, 'retries -1 is invalid'],
      [Number.NaN, undefined, 'retries NaN is invalid'],
      [1, null, 'backoff null is invalid'],
      [1, { type: 'fixed', delayMs: 1.5 }, 'backoff delayMs 1.5 is invalid'],
      [1, { type: 'fixed', delayMs: 1, jitter: 'yes' }, 'backoff jitter yes is invalid'],
    ])('names what is wrong with retries %p and backoff %j', (retries, backoff, problem) => {
      expect(retryPolicyProblem(retries, backoff)).toContain(problem);
    });
  });
});
