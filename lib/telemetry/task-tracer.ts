import type { Context, Span, TracerProvider } from '@opentelemetry/api';

import type { TaskRecord, TaskTraceContext } from '../core/task-record.interface';
import { AttemptSpan } from './attempt-span';
import { MESSAGING_SYSTEM, MessagingAttribute, TRACER_NAME } from './messaging-attributes';
import { loadOpenTelemetry, type OpenTelemetryApi } from './opentelemetry.loader';
import { formatTraceparent, parseTraceparent } from './w3c-trace-context';

/** What one enqueue call stores: `count` tasks of one name in one queue of one backend. */
export interface EnqueueTarget {
  readonly taskName: string;
  readonly queue: string;
  readonly alias: string;
  readonly count: number;
}

/** The API as a TaskTracer loaded it. */
interface OpenedApi {
  readonly api: OpenTelemetryApi | null;
  /** What the API's provider delegates to while no SDK is registered. */
  readonly noopProvider: TracerProvider | null;
}

/**
 * The library's OpenTelemetry spans, through `@opentelemetry/api` when the
 * app installed it. An enqueue made inside an active span gets a PRODUCER
 * span (one per call, whatever the number of tasks), whose W3C context is
 * stored with each task; each attempt runs in a CONSUMER span whose parent
 * is that stored context. Without the package, outside a span (enqueue) or
 * without a registered SDK (attempt), each entry returns null after a check
 * or two: nothing is allocated or stored.
 *
 * @internal
 */
export class TaskTracer {
  private opened: OpenedApi | null = null;

  /**
   * @param load the API, or null without it; called on first use, so a
   *   process that never enqueues nor runs a task (a CLI command) never loads it.
   */
  constructor(private readonly load: () => OpenTelemetryApi | null) {}

  private get api(): OpenTelemetryApi | null {
    return this.open().api;
  }

  private get noopProvider(): TracerProvider | null {
    return this.open().noopProvider;
  }

  private open(): OpenedApi {
    if (this.opened) return this.opened;
    const api = this.load();
    // The API exports no handle on its no-op provider; a fresh proxy delegates to it.
    const noopProvider = api === null ? null : new api.ProxyTracerProvider().getDelegate();
    this.opened = { api, noopProvider };
    return this.opened;
  }

  /** The context to trace an enqueue in: the active one when it has a valid span, else null. */
  enqueueContext(): Context | null {
    const { api } = this;
    if (api === null) return null;
    const active = api.context.active();
    const span = api.trace.getSpan(active);
    return span !== undefined && api.isSpanContextValid(span.spanContext()) ? active : null;
  }

  /**
   * Runs one enqueue call in a PRODUCER span, child of `parent`; `work`
   * gets the trace context to store with its tasks and returns what it
   * stored (`messaging.message.id` when one task). A throw is recorded on
   * the span and rethrown.
   */
  async traceEnqueue<T extends readonly { readonly id: string }[]>(
    parent: Context,
    target: EnqueueTarget,
    work: (traceContext: TaskTraceContext) => Promise<T>,
  ): Promise<T> {
    const api = this.api!;
    const span = api.trace.getTracer(TRACER_NAME).startSpan(
      `send ${target.queue}`,
      {
        kind: api.SpanKind.PRODUCER,
        attributes: {
          [MessagingAttribute.system]: MESSAGING_SYSTEM,
          [MessagingAttribute.destination]: target.queue,
          [MessagingAttribute.operationType]: 'send',
          [MessagingAttribute.operationName]: 'send',
          [MessagingAttribute.taskName]: target.taskName,
          [MessagingAttribute.backend]: target.alias,
          ...(target.count === 1 ? {} : { [MessagingAttribute.batchCount]: target.count }),
        },
      },
      parent,
    );
    const context = api.trace.setSpan(parent, span);
    try {
      const stored = await api.context.with(context, () => work(this.inject(context, span)));
      if (stored.length === 1) span.setAttribute(MessagingAttribute.messageId, stored[0].id);
      return stored;
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setAttribute(
        MessagingAttribute.errorType,
        error instanceof Error ? error.name : typeof error,
      );
      span.setStatus({
        code: api.SpanStatusCode.ERROR,
        message: error instanceof Error ? error.message : String(error),
      });
      throw error;
    } finally {
      span.end();
    }
  }

  /**
   * The CONSUMER span of one attempt of `record`, continuing the trace stored
   * with it (a new trace when it has none); null when no SDK is registered.
   */
  startAttempt(record: TaskRecord): AttemptSpan | null {
    const { api } = this;
    if (api === null || !this.sdkRegistered(api)) return null;
    const parent = this.extract(api, record.task.traceContext);
    const { workerIds } = record;
    const span = api.trace.getTracer(TRACER_NAME).startSpan(
      `process ${record.task.queue}`,
      {
        kind: api.SpanKind.CONSUMER,
        attributes: {
          [MessagingAttribute.system]: MESSAGING_SYSTEM,
          [MessagingAttribute.destination]: record.task.queue,
          [MessagingAttribute.operationType]: 'process',
          [MessagingAttribute.operationName]: 'process',
          [MessagingAttribute.messageId]: record.id,
          [MessagingAttribute.taskName]: record.task.name,
          [MessagingAttribute.taskAttempt]: workerIds.length,
          [MessagingAttribute.backend]: record.task.backend,
          ...(workerIds.length === 0
            ? {}
            : { [MessagingAttribute.workerId]: workerIds[workerIds.length - 1] }),
        },
      },
      parent,
    );
    return new AttemptSpan(api, span, api.trace.setSpan(parent, span));
  }

  private sdkRegistered(api: OpenTelemetryApi): boolean {
    const provider = api.trace.getTracerProvider();
    return (
      !(provider instanceof api.ProxyTracerProvider) || provider.getDelegate() !== this.noopProvider
    );
  }

  /**
   * The W3C context of `span`: through the registered propagator, so its
   * tracestate handling applies; built from the span context when that
   * propagator writes no traceparent (none registered, or another format).
   */
  private inject(context: Context, span: Span): TaskTraceContext {
    const carrier: Record<string, string> = {};
    this.api!.propagation.inject(context, carrier);
    const { traceparent, tracestate } = carrier;
    if (traceparent !== undefined)
      return tracestate ? { traceparent, tracestate } : { traceparent };
    const spanContext = span.spanContext();
    const state = spanContext.traceState?.serialize();
    const built = formatTraceparent(spanContext);
    return state ? { traceparent: built, tracestate: state } : { traceparent: built };
  }

  /** The parent an attempt's span continues: the stored context, read as W3C's propagator reads it. */
  private extract(api: OpenTelemetryApi, stored: TaskTraceContext | undefined): Context {
    if (stored === undefined) return api.ROOT_CONTEXT;
    const extracted = api.propagation.extract(api.ROOT_CONTEXT, { ...stored });
    if (api.trace.getSpanContext(extracted) !== undefined) return extracted;
    // No W3C propagator registered: read the traceparent here.
    const ids = parseTraceparent(stored.traceparent);
    if (ids === null) return api.ROOT_CONTEXT;
    return api.trace.setSpanContext(api.ROOT_CONTEXT, {
      ...ids,
      isRemote: true,
      ...(stored.tracestate ? { traceState: api.createTraceState(stored.tracestate) } : {}),
    });
  }
}

/** The process's tracer: `@opentelemetry/api` is required once, here, on first use. @internal */
export const taskTracer = new TaskTracer(() => loadOpenTelemetry());
