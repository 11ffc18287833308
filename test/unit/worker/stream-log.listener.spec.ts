import { Logger } from '@nestjs/common';
import { announceEndedAttempt } from '../../../lib/core/attempt-outcome';
import { EventStream } from '../../../lib/core/event-stream';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { failedAttempt } from '../../../lib/lifecycle/retry-policy';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { StreamLogListener } from '../../../lib/worker/stream-log.listener';
import { runningRecord } from '../../helpers/ready-record';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

function setup() {
  const logger = new Logger('test');
  const said = (level: 'verbose' | 'log' | 'error') =>
    jest.spyOn(logger, level).mockImplementation(() => undefined);
  const lines = { verbose: said('verbose'), log: said('log'), error: said('error') };
  const stream = new EventStream(logger);
  return { stream, lines, log: new StreamLogListener(stream, logger) };
}

const texts = (spy: jest.SpyInstance): string[] => spy.mock.calls.map(([line]) => String(line));

/** A task as a child's slot 2 runs it, enqueued inside a trace. */
function traced(retries = 0): TaskRecord {
  const record = runningRecord('default', { id: 'task-1', name: 'mail.send' });
  return {
    ...record,
    workerIds: ['host:1-1', 'host:42-2'],
    task: {
      ...record.task,
      retries,
      traceContext: { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` },
    },
  };
}

const source = (record: TaskRecord) => ({ getResult: () => Promise.resolve(record) });

describe('StreamLogListener', () => {
  it("writes a task's start and end at verbose, naming its slot and its trace", () => {
    const { stream, lines, log } = setup();
    const stop = log.tasks();
    const record = traced(1);
    stream.emit('taskStarted', { record, source: source(record) });
    const failed = failedAttempt(record, new Error('boom'));
    stream.emit('taskRetried', { record: failed, source: source(failed), durationMs: 12.34 });
    const done = { ...record, status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date() };
    stream.emit('taskFinished', {
      record: done,
      source: source(done),
      durationMs: 3,
      status: TaskResultStatus.SUCCESSFUL,
    });
    expect(texts(lines.verbose)).toEqual([
      `start mail.send task-1 on host:42-2 trace=${TRACE_ID}`,
      `FAILED mail.send task-1 in 12.3 ms trace=${TRACE_ID}`,
      `SUCCESSFUL mail.send task-1 in 3.0 ms trace=${TRACE_ID}`,
    ]);
    stop();
    expect(stream.listens('taskStarted') || stream.listens('taskFinished')).toBe(false);
  });

  it('leaves the task events unheard unless subscribed, so none is built', () => {
    const { stream, lines, log } = setup();
    const emit = jest.spyOn(stream, 'emit');
    log.pool();
    const record = traced();
    announceEndedAttempt(stream, record, source(record), 0);
    expect(emit).not.toHaveBeenCalled();
    expect(lines.verbose).not.toHaveBeenCalled();
  });

  it("writes a pool's lines at today's levels", () => {
    const { stream, lines, log } = setup();
    log.pool();
    stream.emit('childStarted', { pid: 41 });
    stream.emit('childExited', { pid: 41, cause: 'exit code 0', reason: 'recycled' });
    stream.emit('poolSummary', { done: 12, failed: 1, ratePerSecond: 2.5, children: 2 });
    stream.emit('maintenanceStepFailed', { step: 'trim', error: new Error('READONLY') });
    expect(texts(lines.log)).toEqual([
      'Worker child 41 started.',
      'Worker child 41 exited (exit code 0): recycled.',
      '12 task(s) done, 1 failed, 2.5/s recently, 2 child(ren) alive.',
    ]);
    expect(texts(lines.error)).toEqual(['Maintenance step "trim" failed: Error: READONLY']);
  });

  it('writes each dashboard action: who, what, on what, how many', () => {
    const { stream, lines, log } = setup();
    const stop = log.dashboard();
    stream.emit('dashboardAction', {
      who: 'ada',
      action: 'retry',
      alias: 'default',
      backend: 'default',
      target: 'failed tasks of queue "emails"',
      count: 3,
    });
    stream.emit('dashboardAction', {
      who: undefined,
      action: 'pause',
      alias: 'default',
      backend: 'default',
      target: 'queue "emails"',
      count: 1,
    });
    expect(texts(lines.log)).toEqual([
      'Dashboard: ada did retry on failed tasks of queue "emails" (backend "default"): 3 affected.',
      'Dashboard: an unidentified user did pause on queue "emails" (backend "default"): 1 affected.',
    ]);
    stop();
    expect(stream.listens('dashboardAction')).toBe(false);
  });
});
