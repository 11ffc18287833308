import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  SpanKind,
  SpanStatusCode,
  context,
  createTraceState,
  propagation,
  trace,
  type Span,
} from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

import {
  BackendRegistry,
  MemoryBackend,
  Task,
  TaskResultStatus,
  TaskRunner,
  TaskService,
  ThreadmillModule,
  currentTaskContext,
  type TaskRecord,
} from '../../../lib';
import { taskTracer } from '../../../lib/telemetry/task-tracer';
import { nextAttempt } from '../../../lib/lifecycle/retry-policy';

/** Tasks whose code makes a span of its own, fails, or outlives its limit. */
@Injectable()
class TracedTasks {
  @Task({ name: 'traced.work', retries: 1, backoff: { type: 'fixed', delayMs: 0, jitter: false } })
  work(fail: boolean): string {
    // The app's own instrumentation, as an HTTP or database client would make it.
    trace.getTracer('app').startSpan('app.inner').end();
    if (fail) throw new TypeError('no such user');
    return 'done';
  }

  @Task({ name: 'traced.slow', timeoutMs: 20 })
  async slow(): Promise<void> {
    const { signal } = currentTaskContext()!;
    await new Promise<void>((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    });
  }
}

describe('tracing with @opentelemetry/api', () => {
  // A provider's shutdown stops its exporter: each test has its own.
  let exporter: InMemorySpanExporter;
  let provider: NodeTracerProvider;
  let moduleRef: TestingModule;
  let tasks: TaskService;
  let runner: TaskRunner;
  let backend: MemoryBackend;

  function register(options: { propagator?: null } = {}): void {
    exporter = new InMemorySpanExporter();
    provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    provider.register(options);
  }

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: {
            default: { backend: MemoryBackend, queues: ['default', 'emails'] },
            immediate: { backend: MemoryBackend, options: { immediate: true } },
          },
        }),
      ],
      providers: [TracedTasks],
    }).compile();
    await moduleRef.init();
    tasks = moduleRef.get(TaskService);
    runner = moduleRef.get(TaskRunner);
    backend = moduleRef.get(BackendRegistry).get('default') as MemoryBackend;
  });

  afterEach(async () => {
    await moduleRef.close();
    await provider?.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  /** Runs `work` inside an active span named `request`, as an HTTP server span would be. */
  async function inRequest<T>(work: () => Promise<T>): Promise<{ result: T; request: Span }> {
    return trace.getTracer('app').startActiveSpan('request', async (request) => {
      try {
        return { result: await work(), request };
      } finally {
        request.end();
      }
    });
  }

  const enqueueWork = (fail = false): Promise<{ id: string }> =>
    tasks.enqueueByName('traced.work', [[fail]]).then(([result]) => result);

  async function acquireOne(queue = 'default'): Promise<TaskRecord> {
    const [record] = await backend.leases.acquire([queue], { workerId: 'host:1-1', timeoutMs: 0 });
    return record;
  }

  const spanNamed = (name: string): ReadableSpan => {
    const found = exporter.getFinishedSpans().filter((span) => span.name === name);
    expect(found).toHaveLength(1);
    return found[0];
  };

  describe('enqueue', () => {
    it('makes a PRODUCER span under the active span and stores its W3C context with the task', async () => {
      register();
      const { result, request } = await inRequest(() => enqueueWork());
      const producer = spanNamed('send default');
      expect(producer.kind).toBe(SpanKind.PRODUCER);
      expect(producer.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(producer.attributes).toEqual({
        'messaging.system': 'threadmill',
        'messaging.destination.name': 'default',
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'send',
        'messaging.message.id': result.id,
        'threadmill.task.name': 'traced.work',
        'threadmill.backend': 'default',
      });
      const { traceId, spanId } = producer.spanContext();
      const stored = await tasks.getResult(result.id);
      expect(stored.task.traceContext).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    });

    it('makes one span for a batch, counting its tasks, and every task continues it', async () => {
      register();
      const { result } = await inRequest(() =>
        tasks.enqueueByName('traced.work', [[false], [false], [false]], { queue: 'emails' }),
      );
      const producer = spanNamed('send emails');
      expect(producer.attributes['messaging.batch.message_count']).toBe(3);
      expect(producer.attributes['messaging.message.id']).toBeUndefined();
      const { traceId, spanId } = producer.spanContext();
      for (const task of result) {
        expect(task.task.traceContext?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
      }
    });

    it('keeps the tracestate of the span it continues', async () => {
      register();
      // A remote parent, as an HTTP server span continues an incoming traceparent.
      const parent = trace.setSpanContext(context.active(), {
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
        traceFlags: 1,
        isRemote: true,
        traceState: createTraceState('vendor=opaque'),
      });
      const [result] = await context.with(parent, () =>
        tasks.enqueueByName('traced.work', [[false]]),
      );
      expect(result.task.traceContext?.tracestate).toBe('vendor=opaque');
      expect(result.task.traceContext?.traceparent).toMatch(
        /^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/,
      );
    });

    it('records a refused enqueue on its span', async () => {
      register();
      await expect(
        inRequest(() => tasks.enqueueByName('traced.work', [[false]], { queue: 'nope' })),
      ).rejects.toThrow();
      // An unknown queue is found while the records are built, inside the span.
      const producer = spanNamed('send nope');
      expect(producer.status.code).toBe(SpanStatusCode.ERROR);
      expect(producer.attributes['error.type']).toBe('InvalidTaskError');
      expect(producer.events.map((event) => event.name)).toEqual(['exception']);
    });

    it('builds the traceparent itself when no propagator is registered', async () => {
      register({ propagator: null });
      const { result } = await inRequest(() => enqueueWork());
      const { traceId, spanId } = spanNamed('send default').spanContext();
      const stored = await tasks.getResult(result.id);
      expect(stored.task.traceContext).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    });

    it('stores nothing and makes no span outside a trace', async () => {
      register();
      const result = await enqueueWork();
      expect(exporter.getFinishedSpans()).toEqual([]);
      expect('traceContext' in (await tasks.getResult(result.id)).task).toBe(false);
    });
  });

  describe('attempts', () => {
    it('runs each attempt in a CONSUMER span whose parent is the stored context', async () => {
      register();
      const { result, request } = await inRequest(() => enqueueWork());
      const finished = await runner.run(await acquireOne());
      expect(finished.status).toBe(TaskResultStatus.SUCCESSFUL);
      const producer = spanNamed('send default');
      const consumer = spanNamed('process default');
      expect(consumer.kind).toBe(SpanKind.CONSUMER);
      expect(consumer.spanContext().traceId).toBe(request.spanContext().traceId);
      expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
      expect(consumer.attributes).toEqual({
        'messaging.system': 'threadmill',
        'messaging.destination.name': 'default',
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.message.id': result.id,
        'threadmill.task.name': 'traced.work',
        'threadmill.task.attempt': 1,
        'threadmill.task.status': 'SUCCESSFUL',
        'threadmill.backend': 'default',
        'threadmill.worker.id': 'host:1-1',
      });
      expect(consumer.status.code).toBe(SpanStatusCode.UNSET);
      // The task's own span nests under the attempt's.
      expect(spanNamed('app.inner').parentSpanContext?.spanId).toBe(consumer.spanContext().spanId);
    });

    it('records a failed attempt on its span, and the retry continues the same trace', async () => {
      register();
      const { request } = await inRequest(() => enqueueWork(true));
      const first = await runner.run(await acquireOne());
      expect(first.status).toBe(TaskResultStatus.FAILED);
      await backend.leases.retry([nextAttempt(first, null, new Date())]);
      await runner.run(await acquireOne());
      const attempts = exporter.getFinishedSpans().filter((s) => s.name === 'process default');
      expect(attempts.map((span) => span.attributes['threadmill.task.attempt'])).toEqual([1, 2]);
      for (const span of attempts) {
        expect(span.spanContext().traceId).toBe(request.spanContext().traceId);
        expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no such user' });
        expect(span.attributes['error.type']).toBe('TypeError');
        const [event] = span.events;
        expect(event.name).toBe('exception');
        expect(event.attributes).toMatchObject({
          'exception.type': 'TypeError',
          'exception.message': 'no such user',
        });
      }
    });

    it('shows a timeout and a cancel on the span', async () => {
      register();
      await inRequest(() => tasks.enqueueByName('traced.slow', [[], []]));
      const timedOut = await runner.run(await acquireOne());
      expect(timedOut.status).toBe(TaskResultStatus.FAILED);
      const cancel = new AbortController();
      cancel.abort();
      const cancelled = await runner.run(await acquireOne(), cancel.signal);
      expect(cancelled.status).toBe(TaskResultStatus.CANCELLED);
      const [first, second] = exporter
        .getFinishedSpans()
        .filter((span) => span.name === 'process default');
      expect(first.attributes).toMatchObject({
        'threadmill.task.status': 'FAILED',
        'error.type': 'TaskTimeoutError',
      });
      expect(first.status.code).toBe(SpanStatusCode.ERROR);
      expect(second.attributes).toMatchObject({
        'threadmill.task.status': 'CANCELLED',
        'error.type': 'TaskCancelledError',
      });
      expect(second.status.code).toBe(SpanStatusCode.ERROR);
    });

    it('nests the attempt under the enqueue on an immediate backend, which runs it at once', async () => {
      register();
      await inRequest(() => tasks.enqueueByName('traced.work', [[false]], { alias: 'immediate' }));
      expect(spanNamed('process default').parentSpanContext?.spanId).toBe(
        spanNamed('send default').spanContext().spanId,
      );
    });

    it('starts a trace of its own for a task enqueued outside one', async () => {
      register();
      await enqueueWork();
      await runner.run(await acquireOne());
      expect(spanNamed('process default').parentSpanContext).toBeUndefined();
    });

    it('continues the stored context when no propagator is registered', async () => {
      register({ propagator: null });
      await inRequest(() => enqueueWork());
      await runner.run(await acquireOne());
      expect(spanNamed('process default').parentSpanContext?.spanId).toBe(
        spanNamed('send default').spanContext().spanId,
      );
    });
  });

  describe('without an SDK', () => {
    it('makes no span and stores nothing, the API installed but no provider registered', async () => {
      // A span made by hand is active, yet nothing records it: no provider.
      const result = await trace.getTracer('app').startActiveSpan('request', async (span) => {
        try {
          return await enqueueWork();
        } finally {
          span.end();
        }
      });
      const record = await acquireOne();
      expect('traceContext' in record.task).toBe(false);
      expect(taskTracer.startAttempt(record)).toBeNull();
      expect((await runner.run(record)).status).toBe(TaskResultStatus.SUCCESSFUL);
      expect(result.id).toBe(record.id);
    });
  });
});
