import { Logger } from '@nestjs/common';
import { announceEndedAttempt } from '../../../lib/core/attempt-outcome';
import { EventStream } from '../../../lib/core/event-stream';
import type { StreamEventKind } from '../../../lib/core/stream-events.interface';
import { failedAttempt } from '../../../lib/lifecycle/retry-policy';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { waitFor } from '../../helpers/wait-for';
import { runningRecord } from '../../helpers/ready-record';

const KINDS: StreamEventKind[] = [
  'taskEnqueued',
  'taskStarted',
  'taskProgressed',
  'taskFinished',
  'taskRetried',
  'childStarted',
  'childExited',
  'maintenanceStepFailed',
  'poolSummary',
  'dashboardAction',
];

function setup() {
  const logger = new Logger('test');
  const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  return { stream: new EventStream(logger), errors };
}

const source = (record: TaskRecord) => ({ getResult: () => Promise.resolve(record) });

describe('EventStream', () => {
  it('hears no kind until a listener subscribes, and each kind apart from the others', () => {
    const { stream } = setup();
    for (const kind of KINDS) expect(stream.listens(kind)).toBe(false);
    const off = stream.on('childStarted', () => undefined);
    expect(KINDS.filter((kind) => stream.listens(kind))).toEqual(['childStarted']);
    off();
    expect(stream.listens('childStarted')).toBe(false);
  });

  it('delivers each event to the listeners of its kind only, in the order they subscribed', () => {
    const { stream } = setup();
    const heard: string[] = [];
    stream.on('childStarted', ({ pid }) => heard.push(`first ${pid}`));
    stream.on('childExited', ({ pid, cause }) => heard.push(`exited ${pid} ${cause}`));
    stream.on('childStarted', ({ pid }) => heard.push(`second ${pid}`));
    stream.emit('childStarted', { pid: 7 });
    stream.emit('childExited', { pid: 7, cause: 'exit code 0', reason: 'drained' });
    expect(heard).toEqual(['first 7', 'second 7', 'exited 7 exit code 0']);
  });

  it('stops calling a listener once unsubscribed, even by another listener of the same event', () => {
    const { stream } = setup();
    const heard: string[] = [];
    const offFirst = stream.on('poolSummary', () => {
      heard.push('first');
      offSecond();
    });
    const offSecond = stream.on('poolSummary', () => heard.push('second'));
    const summary = { done: 1, failed: 0, ratePerSecond: 1, children: 1 };
    // The event under way still reaches the listener unsubscribed during it.
    stream.emit('poolSummary', summary);
    stream.emit('poolSummary', summary);
    expect(heard).toEqual(['first', 'second', 'first']);
    offFirst();
    offFirst();
    expect(stream.listens('poolSummary')).toBe(false);
  });

  it('logs a listener that throws or rejects, and still reaches the others', async () => {
    const { stream, errors } = setup();
    const heard: number[] = [];
    stream.on('childStarted', () => {
      throw new Error('listener bug');
    });
    stream.on('childStarted', () => Promise.reject(new Error('async listener bug')) as never);
    stream.on('childStarted', ({ pid }) => heard.push(pid));
    expect(() => stream.emit('childStarted', { pid: 3 })).not.toThrow();
    expect(heard).toEqual([3]);
    await waitFor(() => errors.mock.calls.length === 2, { what: 'both failures logged' });
    expect(errors.mock.calls.map(([message]) => message)).toEqual([
      expect.stringContaining('A "childStarted" listener of the event stream failed'),
      expect.stringContaining('A "childStarted" listener of the event stream failed'),
    ]);
    expect(errors.mock.calls.map(([, stack]) => String(stack))).toEqual([
      expect.stringContaining('listener bug'),
      expect.stringContaining('async listener bug'),
    ]);
  });

  it('counts a listener with `wanted` as hearing only while it wants, and calls it only then', () => {
    const { stream } = setup();
    let wants = false;
    const heard: number[] = [];
    stream.on('childStarted', ({ pid }) => heard.push(pid), { wanted: () => wants });
    expect(stream.listens('childStarted')).toBe(false);
    stream.emit('childStarted', { pid: 1 });
    wants = true;
    expect(stream.listens('childStarted')).toBe(true);
    stream.emit('childStarted', { pid: 2 });
    expect(heard).toEqual([2]);
  });

  describe('an ended attempt', () => {
    const record = (retries: number): TaskRecord => {
      const running = runningRecord('default', { name: 'mail.send' });
      return { ...running, task: { ...running.task, retries } };
    };

    it('is announced as finished with its final status, or as retried while attempts are left', () => {
      const { stream } = setup();
      const heard: string[] = [];
      stream.on('taskFinished', ({ status, durationMs }) => {
        heard.push(`finished ${status} ${durationMs >= 0}`);
      });
      stream.on('taskRetried', ({ record: ended }) => heard.push(`retried ${ended.status}`));
      const retried = failedAttempt(record(1), new Error('boom'));
      announceEndedAttempt(stream, retried, source(retried), performance.now());
      const failed = failedAttempt(record(0), new Error('boom'));
      announceEndedAttempt(stream, failed, source(failed), performance.now());
      const done = { ...record(0), status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date() };
      announceEndedAttempt(stream, done, source(done), performance.now());
      expect(heard).toEqual(['retried FAILED', 'finished FAILED true', 'finished SUCCESSFUL true']);
    });

    it('builds no event while neither end is heard', () => {
      const { stream } = setup();
      const emit = jest.spyOn(stream, 'emit');
      stream.on('taskStarted', () => undefined);
      stream.on('taskFinished', () => undefined, { wanted: () => false });
      const failed = failedAttempt(record(0), new Error('boom'));
      announceEndedAttempt(stream, failed, source(failed), performance.now());
      expect(emit).not.toHaveBeenCalled();
    });
  });
});
