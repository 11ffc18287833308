import type { BackendTelemetry, QueueCounts, QueueSegment, TaskRecord } from '../../../lib/core';
import {
  BackendUnavailableError,
  TaskResultDoesNotExist,
  TaskResultStatus,
} from '../../../lib/core';
import type { InspectorBackend } from '../../../lib/inspector/inspector.store';

/**
 * The reads the inspector makes, over tasks kept per queue and segment, with
 * counts that may claim more than it holds (a million ready tasks without
 * storing them) and a switch that makes every read fail as if the store were
 * down. It has no write methods: the InspectorBackend type has none either.
 */
export class FakeInspectorBackend implements InspectorBackend {
  /** Every read the inspector made, for asserting that it never reads a whole set. */
  readonly peeks: { queue: string; segment: QueueSegment; count: number }[] = [];
  telemetryCalls = 0;
  down = false;
  /** What every read says while `down`. */
  downReason = 'connect ECONNREFUSED 127.0.0.1:6379';
  private readonly tasks = new Map<string, TaskRecord[]>();
  private readonly claimedCounts = new Map<string, Partial<QueueCounts>>();

  constructor(
    readonly alias: string,
    readonly queues: readonly string[] = ['default'],
  ) {}

  /** Puts tasks in a segment, best first (replacing what was there). */
  put(queue: string, segment: QueueSegment, records: TaskRecord[]): this {
    this.tasks.set(`${queue}/${segment}`, records);
    return this;
  }

  /** Makes telemetry report these counts instead of the stored ones. */
  claim(queue: string, counts: Partial<QueueCounts>): this {
    this.claimedCounts.set(queue, counts);
    return this;
  }

  async peek(queue: string, segment: QueueSegment, count: number): Promise<TaskRecord[]> {
    this.assertUp();
    this.peeks.push({ queue, segment, count });
    return (this.tasks.get(`${queue}/${segment}`) ?? []).slice(0, count);
  }

  async telemetry(intervalMs: number): Promise<BackendTelemetry> {
    this.assertUp();
    this.telemetryCalls++;
    const queues: BackendTelemetry['queues'] = {};
    for (const queue of this.queues) {
      const stored = (segment: QueueSegment): number =>
        this.tasks.get(`${queue}/${segment}`)?.length ?? 0;
      queues[queue] = {
        counts: {
          ready: stored('ready'),
          running: stored('running'),
          deferred: stored('deferred'),
          successful: stored('successful'),
          failed: stored('failed'),
          ...this.claimedCounts.get(queue),
        },
        rates: { intervalMs, ingress: 0, egress: 0, failed: 0 },
      };
    }
    return { queues };
  }

  async getResult(id: string): Promise<TaskRecord> {
    this.assertUp();
    for (const records of this.tasks.values()) {
      const found = records.find((r) => r.id === id);
      if (found) return found;
    }
    throw new TaskResultDoesNotExist(`no ${id}`);
  }

  private assertUp(): void {
    if (this.down) throw new BackendUnavailableError(this.downReason);
  }
}

const base = Date.parse('2026-11-30T03:00:00.000Z');

/** A task record with sensible defaults; `overrides` wins. */
export function taskRecord(id: string, overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id,
    task: {
      name: 'MailTasks.sendWelcome',
      queue: 'default',
      priority: 0,
      runAfter: null,
      backend: 'default',
    },
    status: TaskResultStatus.READY,
    enqueuedAt: new Date(base),
    startedAt: null,
    finishedAt: null,
    lastAttemptedAt: null,
    args: ['user-1'],
    errors: [],
    workerIds: [],
    ...overrides,
  };
}
