import { recordWith } from '../../../lib/core/record-with';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';

const running: TaskRecord = {
  id: 'id-1',
  task: { name: 't', queue: 'default', priority: 0, runAfter: null, backend: 'b', retries: 2 },
  status: TaskResultStatus.RUNNING,
  enqueuedAt: new Date(0),
  startedAt: new Date(1),
  finishedAt: null,
  lastAttemptedAt: new Date(2),
  args: [1, 'two'],
  errors: [{ className: 'Error', traceback: 'Error: first' }],
  workerIds: ['h:1-1'],
};

describe('recordWith', () => {
  it('changes only the fields given and keeps the rest, the same objects included', () => {
    const copy = recordWith(running, { workerIds: ['h:1-7'] });
    expect(copy).toStrictEqual({ ...running, workerIds: ['h:1-7'] });
    expect(copy).not.toBe(running);
    expect(copy.task).toBe(running.task);
    expect(copy.args).toBe(running.args);
    expect(running.workerIds).toEqual(['h:1-1']);
  });

  it('adds returnValue exactly when the copy is SUCCESSFUL, null when none is given', () => {
    const finishedAt = new Date(3);
    const successful = recordWith(running, { status: TaskResultStatus.SUCCESSFUL, finishedAt });
    expect(successful).toStrictEqual({
      ...running,
      status: TaskResultStatus.SUCCESSFUL,
      finishedAt,
      returnValue: null,
    });
    const returned = recordWith(running, {
      status: TaskResultStatus.SUCCESSFUL,
      returnValue: { sent: 2 },
    });
    expect(returned.returnValue).toEqual({ sent: 2 });
    const failed = recordWith(returned, { status: TaskResultStatus.FAILED });
    expect('returnValue' in failed).toBe(false);
  });

  it('sets a nullable field to null when asked, and keeps it when the change is undefined', () => {
    const ready = recordWith(running, {
      status: TaskResultStatus.READY,
      startedAt: null,
      lastAttemptedAt: undefined,
    });
    expect(ready.startedAt).toBeNull();
    expect(ready.lastAttemptedAt).toBe(running.lastAttemptedAt);
    const successful = recordWith(running, {
      status: TaskResultStatus.SUCCESSFUL,
      returnValue: 'kept',
    });
    expect(recordWith(successful, { returnValue: null }).returnValue).toBeNull();
  });
});
