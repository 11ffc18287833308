import type { LoggerService } from '@nestjs/common';
import type { Gauge, Registry } from 'prom-client';

import { storeGaugesFailed } from './metrics.messages';
import type { OutboxBacklog } from '../core/outbox-backlog';
import type { TaskBackend } from '../core/task-backend.interface';
import { dueAt } from './task-times';
import { ROLE_LEASE_SCRAPES, STORE_GAUGES_ROLE } from './metrics.constants';
import type { PromClient } from './prom-client.loader';

/** What one read of a backend gave, per queue: its waiting counts and when its head became due. */
interface QueueReading {
  readonly ready: number;
  readonly running: number;
  readonly deferred: number;
  /** When the next task to run became due; null for an empty ready queue. */
  readonly headDueAt: Date | null;
}

/** The names of the store gauges, for a registry to leave when the app closes. */
export const STORE_GAUGE_NAMES = [
  'threadmill_queue_tasks',
  'threadmill_queue_oldest_waiting_seconds',
  'threadmill_outbox_tasks',
  'threadmill_outbox_oldest_seconds',
  'threadmill_outbox_parked_tasks',
] as const;

interface BackendReading {
  readonly at: number;
  readonly queues: ReadonlyMap<string, QueueReading>;
  /** What waits in its outbox; null for a backend without one. */
  readonly outbox: OutboxBacklog | null;
}

export interface StoreGaugesOptions {
  /** Who claims the role: a pool id, or the app process's own id. */
  readonly holder: string;
  /** How often the metrics are scraped: the store is read at most that often. */
  readonly scrapeIntervalMs: number;
  readonly logger: LoggerService;
}

/**
 * The store-wide gauges of the backends' queues (how many tasks wait in
 * each state, how long the next one has been due). They describe the store,
 * not a process: were every pool to expose them, a `sum()` over ten pools
 * would read ten times the backlog. So only the holder of the store gauges
 * role exposes them, a lease claimed at each scrape (`claimRole`) that lasts
 * a few scrape intervals: when its holder dies, the next process scraped
 * after the lease ran out takes the role over. The holder reads the store
 * (one telemetry call and one peek per queue) at most once per scrape
 * interval, never per series.
 *
 * @internal
 */
export class StoreGauges {
  private readonly tasks: Gauge<'backend' | 'queue' | 'state'>;
  private readonly oldestWaiting: Gauge<'backend' | 'queue'>;
  private readonly outboxTasks: Gauge<'backend'>;
  private readonly outboxOldest: Gauge<'backend'>;
  private readonly outboxParked: Gauge<'backend'>;
  private readonly readings = new Map<string, BackendReading>();
  /** The update under way: the two gauges' collects of one scrape share it. */
  private updating: Promise<void> | null = null;

  constructor(
    prom: PromClient,
    registers: Registry[],
    private readonly backends: () => readonly TaskBackend[],
    private readonly options: StoreGaugesOptions,
  ) {
    const collect = (): Promise<void> => this.update();
    this.tasks = new prom.Gauge({
      name: STORE_GAUGE_NAMES[0],
      help: 'Tasks in a queue of the store, by state (ready, running, deferred); exposed by one process only.',
      labelNames: ['backend', 'queue', 'state'],
      registers,
      collect,
    });
    this.oldestWaiting = new prom.Gauge({
      name: STORE_GAUGE_NAMES[1],
      help: 'How long the next task to run in a queue has been due (0 when none waits); exposed by one process only.',
      labelNames: ['backend', 'queue'],
      registers,
      collect,
    });
    this.outboxTasks = new prom.Gauge({
      name: STORE_GAUGE_NAMES[2],
      help: "Tasks in a backend's outbox in the app's Postgres, not yet moved to its store; exposed by one process only.",
      labelNames: ['backend'],
      registers,
      collect,
    });
    this.outboxOldest = new prom.Gauge({
      name: STORE_GAUGE_NAMES[3],
      help: "How long the oldest task in a backend's outbox has waited for its relay (0 when none waits); exposed by one process only.",
      labelNames: ['backend'],
      registers,
      collect,
    });
    this.outboxParked = new prom.Gauge({
      name: STORE_GAUGE_NAMES[4],
      help: "Tasks in a backend's outbox its relay set aside, as it can never move them as written; exposed by one process only.",
      labelNames: ['backend'],
      registers,
      collect,
    });
  }

  /** Claims the role on every backend, reads those it holds when due, and sets the gauges. */
  private update(): Promise<void> {
    this.updating ??= this.claimAndRead().finally(() => {
      this.updating = null;
    });
    return this.updating;
  }

  private async claimAndRead(): Promise<void> {
    await Promise.all(this.backends().map((backend) => this.refresh(backend)));
    this.tasks.reset();
    this.oldestWaiting.reset();
    this.outboxTasks.reset();
    this.outboxOldest.reset();
    this.outboxParked.reset();
    const now = Date.now();
    for (const [backend, reading] of this.readings) {
      if (reading.outbox !== null) {
        this.outboxTasks.set({ backend }, reading.outbox.waiting);
        this.outboxOldest.set({ backend }, (reading.outbox.oldestAgeMs ?? 0) / 1000);
        this.outboxParked.set({ backend }, reading.outbox.parked);
      }
      for (const [queue, counts] of reading.queues) {
        this.tasks.set({ backend, queue, state: 'ready' }, counts.ready);
        this.tasks.set({ backend, queue, state: 'running' }, counts.running);
        this.tasks.set({ backend, queue, state: 'deferred' }, counts.deferred);
        const waited = counts.headDueAt === null ? 0 : now - counts.headDueAt.getTime();
        this.oldestWaiting.set({ backend, queue }, Math.max(0, waited) / 1000);
      }
    }
  }

  /** Keeps a fresh reading of `backend` while this process holds its role; none otherwise. */
  private async refresh(backend: TaskBackend): Promise<void> {
    const { holder, scrapeIntervalMs, logger } = this.options;
    try {
      const holds = await backend.pools.claimRole(
        STORE_GAUGES_ROLE,
        holder,
        ROLE_LEASE_SCRAPES * scrapeIntervalMs,
      );
      if (!holds) {
        this.readings.delete(backend.alias);
        return;
      }
      const last = this.readings.get(backend.alias);
      if (last !== undefined && Date.now() - last.at < scrapeIntervalMs) return;
      this.readings.set(backend.alias, await this.read(backend));
    } catch (error) {
      // Left out of this scrape rather than shown stale; the next scrape tries again.
      this.readings.delete(backend.alias);
      logger.warn(storeGaugesFailed(backend.alias, error));
    }
  }

  private async read(backend: TaskBackend): Promise<BackendReading> {
    const at = Date.now();
    const [telemetry, heads, outbox] = await Promise.all([
      // Only its counts are used: the rate window does not matter.
      backend.reads.telemetry(this.options.scrapeIntervalMs),
      Promise.all(backend.queues.map((queue) => backend.reads.peek(queue, 'ready', 1))),
      backend.reads.outboxBacklog?.() ?? null,
    ]);
    const queues = new Map<string, QueueReading>();
    backend.queues.forEach((queue, i) => {
      const counts = telemetry.queues[queue]?.counts;
      const head = heads[i][0];
      queues.set(queue, {
        ready: counts?.ready ?? 0,
        running: counts?.running ?? 0,
        deferred: counts?.deferred ?? 0,
        headDueAt: head ? dueAt(head.enqueuedAt, head.task.runAfter) : null,
      });
    });
    return { at, queues, outbox };
  }
}
