/**
 * The span attributes of OpenTelemetry's messaging semantic conventions the
 * task spans carry, and the library's own. Written once, so the producer,
 * the consumer, the docs and the tests agree.
 *
 * @internal
 */
export const MessagingAttribute = {
  system: 'messaging.system',
  destination: 'messaging.destination.name',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  messageId: 'messaging.message.id',
  batchCount: 'messaging.batch.message_count',
  consumerGroup: 'messaging.consumer.group.name',
  errorType: 'error.type',
  taskName: 'threadmill.task.name',
  taskAttempt: 'threadmill.task.attempt',
  taskStatus: 'threadmill.task.status',
  backend: 'threadmill.backend',
  workerId: 'threadmill.worker.id',
} as const;

/** `messaging.system` of every task span. */
export const MESSAGING_SYSTEM = 'threadmill';

/** The instrumentation scope the spans are created under. */
export const TRACER_NAME = '@threadmill/nestjs';
