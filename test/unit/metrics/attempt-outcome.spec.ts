import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { attemptOutcome } from '../../../lib/core/attempt-outcome';
import { dueAt, secondsBetween } from '../../../lib/metrics/task-times';

describe('attemptOutcome (the status label and the retry counter)', () => {
  const ended = (status: TaskResultStatus, attempts: number, retries?: number) => ({
    status,
    attempts,
    task: { retries },
  });

  it.each([TaskResultStatus.SUCCESSFUL, TaskResultStatus.CANCELLED])(
    'counts %s as finished with that status, whatever attempts are left',
    (status) => {
      expect(attemptOutcome(ended(status, 1, 3))).toEqual({ counts: 'finished', status });
    },
  );

  it('counts a FAILED attempt with attempts left as a retry', () => {
    expect(attemptOutcome(ended(TaskResultStatus.FAILED, 1, 1))).toEqual({ counts: 'retry' });
    expect(attemptOutcome(ended(TaskResultStatus.FAILED, 2, 2))).toEqual({ counts: 'retry' });
  });

  it('counts the last FAILED attempt (or one of a task without retries) as finished FAILED', () => {
    const failed = { counts: 'finished', status: TaskResultStatus.FAILED };
    expect(attemptOutcome(ended(TaskResultStatus.FAILED, 2, 1))).toEqual(failed);
    expect(attemptOutcome(ended(TaskResultStatus.FAILED, 1))).toEqual(failed);
    // No worker id recorded: the attempt that ended still counts as one.
    expect(attemptOutcome(ended(TaskResultStatus.FAILED, 0))).toEqual(failed);
  });

  it.each([TaskResultStatus.READY, TaskResultStatus.RUNNING])('counts nothing for %s', (status) => {
    expect(attemptOutcome(ended(status, 1))).toBeNull();
  });
});

describe('the time labels', () => {
  it('measures a wait from the later of enqueue and runAfter', () => {
    const enqueued = new Date(1000);
    expect(dueAt(enqueued, null)).toBe(enqueued);
    expect(dueAt(enqueued, new Date(500))).toBe(enqueued);
    expect(dueAt(enqueued, new Date(4000))).toEqual(new Date(4000));
  });

  it('gives seconds, never negative, and none without both ends', () => {
    expect(secondsBetween(new Date(1000), new Date(3500))).toBe(2.5);
    expect(secondsBetween(new Date(3500), new Date(1000))).toBe(0);
    expect(secondsBetween(null, new Date(1000))).toBeNull();
  });
});
