import { traceIdOf } from '../../../lib/core/trace-id';
import { taskFinishedLine, taskStartedLine } from '../../../lib/worker/worker.messages';
import { loadOpenTelemetry } from '../../../lib/telemetry/opentelemetry.loader';
import { TaskTracer } from '../../../lib/telemetry/task-tracer';
import { formatTraceparent, parseTraceparent } from '../../../lib/telemetry/w3c-trace-context';
import { runningRecord } from '../../helpers/ready-record';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

describe('tracing without @opentelemetry/api', () => {
  it('loads nothing when the package is not installed', () => {
    expect(loadOpenTelemetry('@opentelemetry/not-installed-here')).toBeNull();
  });

  it('loads the package when it is installed', () => {
    expect(loadOpenTelemetry()?.trace).toBeDefined();
  });

  it('traces no enqueue and no attempt', () => {
    const tracer = new TaskTracer(() => null);
    expect(tracer.enqueueContext()).toBeNull();
    const record = runningRecord('default', { name: 'plain.task' });
    expect(
      tracer.startAttempt({
        ...record,
        task: { ...record.task, traceContext: { traceparent: TRACEPARENT } },
      }),
    ).toBeNull();
  });
});

describe('W3C trace context', () => {
  it('formats a span context as W3C traceparent', () => {
    expect(
      formatTraceparent({ traceId: TRACE_ID, spanId: '00f067aa0ba902b7', traceFlags: 1 }),
    ).toBe(TRACEPARENT);
    expect(
      formatTraceparent({ traceId: TRACE_ID, spanId: '00f067aa0ba902b7', traceFlags: 0 }),
    ).toBe(`00-${TRACE_ID}-00f067aa0ba902b7-00`);
  });

  it('reads a traceparent back, and refuses what W3C calls invalid', () => {
    expect(parseTraceparent(TRACEPARENT)).toEqual({
      traceId: TRACE_ID,
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
    });
    // A later version may add fields; version 00 may not.
    expect(parseTraceparent(`01-${TRACE_ID}-00f067aa0ba902b7-01-extra`)).not.toBeNull();
    expect(parseTraceparent(`${TRACEPARENT}-extra`)).toBeNull();
    expect(parseTraceparent(`ff-${TRACE_ID}-00f067aa0ba902b7-01`)).toBeNull();
    expect(parseTraceparent(`00-${'0'.repeat(32)}-00f067aa0ba902b7-01`)).toBeNull();
    expect(parseTraceparent(`00-${TRACE_ID}-${'0'.repeat(16)}-01`)).toBeNull();
    expect(parseTraceparent('not a traceparent')).toBeNull();
  });
});

describe("a task's log lines", () => {
  const record = runningRecord('default', { id: 'task-1', name: 'mail.send' });
  const traced = {
    ...record,
    task: { ...record.task, traceContext: { traceparent: TRACEPARENT } },
  };

  it('name the trace of a task enqueued inside one', () => {
    expect(traceIdOf(traced.task.traceContext)).toBe(TRACE_ID);
    expect(taskStartedLine(traced, 'host:1-1')).toBe(
      `start mail.send task-1 on host:1-1 trace=${TRACE_ID}`,
    );
    expect(taskFinishedLine(traced, 12.34, 'SUCCESSFUL')).toBe(
      `SUCCESSFUL mail.send task-1 in 12.3 ms trace=${TRACE_ID}`,
    );
  });

  it('stay as they were for a task enqueued outside a trace', () => {
    expect(traceIdOf(record.task.traceContext)).toBeUndefined();
    expect(taskStartedLine(record, 'host:1-1')).toBe('start mail.send task-1 on host:1-1');
  });
});
