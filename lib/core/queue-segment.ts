import { TaskResultStatus } from './task-result-status.enum';

/** The segments of a queue a task can be in; `peek` and telemetry speak of these. */
export type QueueSegment = 'ready' | 'running' | 'deferred' | 'successful' | 'failed' | 'cancelled';

export const QUEUE_SEGMENTS: readonly QueueSegment[] = [
  'ready',
  'running',
  'deferred',
  'successful',
  'failed',
  'cancelled',
];

/** The segments that hold finished tasks, one per final status (history). */
export type FinishedSegment = Extract<QueueSegment, 'successful' | 'failed' | 'cancelled'>;

/** The history segment of a final status. */
export function finishedSegment(status: TaskResultStatus): FinishedSegment {
  if (status === TaskResultStatus.SUCCESSFUL) return 'successful';
  return status === TaskResultStatus.CANCELLED ? 'cancelled' : 'failed';
}

export function isFinishedSegment(segment: QueueSegment): segment is FinishedSegment {
  return segment === 'successful' || segment === 'failed' || segment === 'cancelled';
}
