import type { Context, Span } from '@opentelemetry/api';

import type { TaskRecord } from '../core/task-record.interface';
import { TaskResultStatus } from '../core/task-result-status.enum';
import { MessagingAttribute } from './messaging-attributes';
import type { OpenTelemetryApi } from './opentelemetry.loader';

/**
 * The CONSUMER span of one attempt, made only when an SDK is registered
 * (see TaskTracer.startAttempt). The task's code runs in its context, so
 * the app's own spans nest under it; it ends with the attempt's outcome.
 *
 * @internal
 */
export class AttemptSpan {
  constructor(
    private readonly api: OpenTelemetryApi,
    private readonly span: Span,
    private readonly context: Context,
  ) {}

  /** Runs `work` with this span active. */
  run<T>(work: () => T): T {
    return this.api.context.with(this.context, work);
  }

  /**
   * Ends the span with the attempt's outcome: `threadmill.task.status`, and
   * for a failed or cancelled attempt (a timeout is a failure) the error the
   * record ends with, as an exception event, `error.type` and status ERROR.
   */
  end(finished: TaskRecord): void {
    const { span } = this;
    span.setAttribute(MessagingAttribute.taskStatus, finished.status);
    const error = finished.errors[finished.errors.length - 1];
    if (finished.status !== TaskResultStatus.SUCCESSFUL && error !== undefined) {
      const message = firstLine(error.traceback, error.className);
      span.recordException({ name: error.className, message, stack: error.traceback });
      span.setAttribute(MessagingAttribute.errorType, error.className);
      span.setStatus({ code: this.api.SpanStatusCode.ERROR, message });
    }
    span.end();
  }
}

/** The message of a stored stack: its first line without the `Name: ` prefix. */
function firstLine(traceback: string, className: string): string {
  const line = traceback.split('\n', 1)[0];
  return line.startsWith(`${className}: `) ? line.slice(className.length + 2) : line;
}
