import { Logger } from '@nestjs/common';

import type { MemoryBackendOptions } from '../../../lib/backends/memory/memory-backend-options.interface';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { WorkerChild, type WorkerChildDeps } from '../../../lib/worker/child/worker-child';
import type { HeldJournal } from '../../../lib/worker/held-journal';
import type { ChildMessage } from '../../../lib/worker/worker-ipc';
import type { WorkerOptions } from '../../../lib/worker/worker-options.interface';
import { memoryBackend } from '../../helpers/memory-backend';
import { TempJournal } from '../../helpers/temp-journal';
import { workerOptions } from '../../helpers/worker-options';

/** A task run the test settles by hand. */
export interface PendingRun {
  record: TaskRecord;
  succeed(): void;
  fail(error: unknown): void;
}

const journals: TempJournal[] = [];
afterEach(() => journals.splice(0).forEach((journal) => journal.close()));

/** What the 'settled' messages reported in all. */
export function reported(messages: readonly ChildMessage[]): { succeeded: number; failed: number } {
  const total = { succeeded: 0, failed: 0 };
  for (const message of messages) {
    if (message.kind !== 'settled') continue;
    total.succeeded += message.succeeded;
    total.failed += message.failed;
  }
  return total;
}

export const ids = (records: readonly TaskRecord[]): string[] => records.map((r) => r.id);

export interface ChildSetupExtras {
  /** What the recycling jitter draws. */
  random?: number;
  leaseCheckMs?: number;
  /** Opens the child's journal in the TempJournal's folder instead of the usual one. */
  journalIn?: (dir: string) => HeldJournal;
  backend?: MemoryBackendOptions;
  /** The pool the child belongs to, and its cancel poll. */
  poolId?: string;
  cancelPoll?: WorkerChildDeps['cancelPoll'];
}

/**
 * A WorkerChild (identity `host:42`) on a real MemoryBackend whose calls are
 * spied on (they still run): each task it starts waits in `runs` until the
 * test settles it.
 */
export function setupChild(options: Partial<WorkerOptions> = {}, extras: ChildSetupExtras = {}) {
  const backend = memoryBackend(extras.backend);
  // The parts' own calls, kept before the spies take their place.
  const real = { leases: { ...backend.leases }, reads: { ...backend.reads } };
  const spies = {
    acquire: jest.spyOn(backend.leases, 'acquire'),
    acknowledge: jest.spyOn(backend.leases, 'acknowledge'),
    release: jest.spyOn(backend.leases, 'release'),
    unlease: jest.spyOn(backend.leases, 'unlease'),
    getResult: jest.spyOn(backend.tasks, 'getResult'),
  };
  const journal = new TempJournal();
  journals.push(journal);
  const runs: PendingRun[] = [];
  const messages: ChildMessage[] = [];
  const logger = new Logger('test');
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  // What a child logs as it goes (put-backs and the like): read by the tests that check it, not printed.
  jest.spyOn(logger, 'log').mockImplementation(() => undefined);
  const deps: { -readonly [K in keyof WorkerChildDeps]: WorkerChildDeps[K] } = {
    backend,
    runTask: (record) =>
      new Promise<TaskRecord>((resolve, reject) => {
        runs.push({
          record,
          succeed: () =>
            resolve({
              ...record,
              status: TaskResultStatus.SUCCESSFUL,
              finishedAt: new Date(),
              returnValue: null,
            }),
          fail: reject,
        });
      }),
    channel: {
      send: async (message: ChildMessage) => {
        messages.push(message);
      },
    },
    journal: extras.journalIn?.(journal.dir) ?? journal.journal,
    logger,
    identity: 'host:42',
    idleWaitMs: 60_000,
    retryDelayMs: 10,
    leaseCheckMs: extras.leaseCheckMs,
    poolId: extras.poolId,
    cancelPoll: extras.cancelPoll,
    random: () => extras.random ?? 0,
  };
  const child = new WorkerChild(workerOptions(backend.alias, { threads: 3, ...options }), deps);
  return { backend, real, spies, runs, messages, child, deps, journal, logger };
}

/** The options of each acquire the child made, in order (those inside acknowledgeAndAcquire too). */
export const acquireOptions = (spy: ReturnType<typeof setupChild>['spies']['acquire']) =>
  spy.mock.calls.map(([, options]) => options);
