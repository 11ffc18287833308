import { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';

import type { MemoryBackendOptions } from '../../../lib/backends/memory/memory-backend-options.interface';
import type { StoreCorruptError } from '../../../lib/core/errors/store-corrupt.error';
import { EventStream } from '../../../lib/core/event-stream';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { HeldJournal } from '../../../lib/worker/held-journal';
import type { ChildMessage, ParentMessage } from '../../../lib/worker/worker-ipc';
import type { WorkerOptions } from '../../../lib/worker/worker-options.interface';
import { WorkerPool } from '../../../lib/worker/pool/worker-pool';
import { StoreDamage } from '../../../lib/worker/store-damage';
import type { ForkedChild } from '../../../lib/worker/pool/worker-pool.deps';
import type { PoolSchedules } from '../../../lib/schedule/schedule.service';
import { leaseTo, memoryBackend } from '../../helpers/memory-backend';
import { waitFor } from '../../helpers/wait-for';
import { workerOptions } from '../../helpers/worker-options';

/** A forked child the test drives: it "sends" messages, journals held ids and "dies" on command. */
export class FakeChild extends EventEmitter implements ForkedChild {
  static nextPid = 1000;
  readonly pid = FakeChild.nextPid++;
  connected = true;
  readonly received: ParentMessage[] = [];
  private readonly journal: HeldJournal;

  constructor(readonly journalPath: string) {
    super();
    this.journal = new HeldJournal(journalPath);
  }

  hold(ids: string[], waiting: string[] = []): void {
    this.journal.hold(ids, waiting);
  }

  started(ids: string[]): void {
    this.journal.started(ids);
  }

  release(ids: string[]): void {
    this.journal.forget(ids);
  }

  send(message: ParentMessage, callback: (error: Error | null) => void): boolean {
    this.received.push(message);
    callback(null);
    return true;
  }

  kill(signal: NodeJS.Signals): boolean {
    this.die(null, signal);
    return true;
  }

  tell(message: ChildMessage): void {
    this.emit('message', message);
  }

  die(code: number | null, signal: NodeJS.Signals | null = null): void {
    this.connected = false;
    this.journal.close();
    setImmediate(() => this.emit('close', code, signal));
  }
}

/** The worker id of `child`'s slot `slot` (`host:pid-slot`), as its leases name it. */
export const slotOf = (child: FakeChild, slot = 1): string => `host:${child.pid}-${slot}`;

/** `record` with `retries` attempts left after its first. */
export const withRetries = (record: TaskRecord, retries: number): TaskRecord => ({
  ...record,
  task: { ...record.task, retries },
});

/**
 * A WorkerPool (host `host`) of FakeChild processes on a real MemoryBackend
 * whose calls are spied on (they still run), so a test sees what the pool
 * sent and reads what the store then holds.
 */
export function setup(
  options: Partial<WorkerOptions> = {},
  pools: {
    poolId?: string;
    heartbeatToleranceMs?: number;
    journalRoot?: string;
    livenessCheckMs?: number;
    schedules?: PoolSchedules;
    /** As the launcher wires it: a damaged store stops the pool urgently. */
    storeDamage?: boolean;
  } = {},
  backendOptions: MemoryBackendOptions = {},
) {
  const backend = memoryBackend(backendOptions);
  const spies = {
    // Each maintenance pass marks itself once, last.
    maintenancePass: jest.spyOn(backend.maintenance, 'markPass'),
    acknowledge: jest.spyOn(backend.leases, 'acknowledge'),
    retry: jest.spyOn(backend.leases, 'retry'),
    release: jest.spyOn(backend.leases, 'release'),
    unlease: jest.spyOn(backend.leases, 'unlease'),
    beatPool: jest.spyOn(backend.pools, 'beat'),
    retirePool: jest.spyOn(backend.pools, 'retire'),
  };
  const children: FakeChild[] = [];
  const logger = new Logger('test');
  for (const level of ['log', 'warn', 'error', 'debug'] as const) {
    jest.spyOn(logger, level).mockImplementation(() => undefined);
  }
  const stream = new EventStream(logger);
  const { storeDamage, ...poolDeps } = pools;
  const damage = new StoreDamage(logger, 'the store is damaged', () => pool.stop(true));
  const pool: WorkerPool = new WorkerPool(
    workerOptions(backend.alias, { processes: 2, ...options }),
    {
      backend,
      host: 'host',
      logger,
      stream,
      forkChild: (journalPath) => {
        const child = new FakeChild(journalPath);
        children.push(child);
        return child;
      },
      summaryIntervalMs: 60_000,
      bootRetryMs: 10,
      urgentGraceMs: 60_000,
      livenessCheckMs: 60_000,
      ...(storeDamage && { storeCorrupt: (error: StoreCorruptError) => damage.report(error) }),
      ...poolDeps,
    },
  );
  return { backend, spies, children, pool, logger, stream, damage };
}

export type PoolHarness = ReturnType<typeof setup>;

export const ready = (child: FakeChild): void => child.tell({ kind: 'ready' });

/**
 * Resolves once the pool logged that it recovered `child`'s tasks: the last
 * step of the recovery, after what it stored was counted.
 */
export const recovered = (logger: Logger, child: FakeChild) =>
  waitFor(
    () =>
      jest
        .mocked(logger.warn)
        .mock.calls.some(([message]) =>
          String(message).startsWith(`Recovered the tasks of worker child ${child.pid}:`),
        ),
    { what: `the tasks of child ${child.pid} recovered` },
  );

/** Runs the pool and resolves once it forked `count` children; `run` ends with the pool. */
export async function forked(
  { pool, children }: PoolHarness,
  count: number,
): Promise<{ run: Promise<void> }> {
  const run = pool.run();
  await waitFor(() => children.length === count, {
    what: count === 1 ? 'a child' : `${count} children`,
  });
  return { run };
}

/** Stops the pool, has every child it forked exit cleanly, and waits for the pool's end. */
export async function stopAll({ pool, children }: PoolHarness, run: Promise<void>): Promise<void> {
  pool.stop(false);
  children.forEach((child) => child.die(0));
  await run;
}

/** A pool (`setup`'s arguments) run until it forked its children (`processes`, 2 unless said). */
export async function started(...args: Parameters<typeof setup>) {
  const harness = setup(...args);
  const { run } = await forked(harness, args[0]?.processes ?? 2);
  return { ...harness, run, stopAll: () => stopAll(harness, run) };
}

/** A pool of one child (`setup`'s arguments, `processes: 1` unless they say), forked and ready. */
export async function oneReadyChild(...args: Parameters<typeof setup>) {
  const [options, ...rest] = args;
  const harness = await started({ processes: 1, ...options }, ...rest);
  const { run } = harness;
  const [child] = harness.children;
  ready(child);
  return {
    ...harness,
    child,
    /** Leases `record` to the child, which holds it and is killed: resolves once it was recovered. */
    async crashHolding(record: TaskRecord): Promise<void> {
      await leaseTo(harness.backend, slotOf(child), record);
      child.hold([record.id]);
      child.die(null, 'SIGKILL');
      await recovered(harness.logger, child);
    },
    /**
     * After the child died: stops the pool, has the replacement the pool forked
     * for it exit once it is there, and waits for the pool's end.
     */
    async stopReplaced(): Promise<void> {
      harness.pool.stop(false);
      await waitFor(() => harness.children.length === 2, { what: 'a replacement' });
      harness.children[1].die(0);
      await run;
    },
  };
}
