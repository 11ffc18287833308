import type { LoggerService } from '@nestjs/common';
import type { Arbitrary } from 'fast-check';

import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { holderAnswer } from '../../task/holder-answer';
import { ChildCancels } from '../../worker/child/child-cancels';
import { isLease } from '../../worker/child/held-tasks';
import { readyRecord } from './ready-record';
import { CallTurns } from './call-turns';
import type { ContractRunner } from './contract-runner';
import { describeWithFastCheck, type FastCheck } from './fast-check.loader';
import type { StartControls, StartControlsFactory } from './start-controls';

/** A child's log lines (a task cancelled unstarted) say nothing a program checks. */
const quietLogger: LoggerService = {
  log: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/**
 * How long `cancel()` waits for the holder here, and how old the holder's
 * read may be when it starts a task: the same relation as in production
 * (the first longer), both short, so a program runs in milliseconds.
 */
const ANSWER_WITHIN_MS = 40;
const VIEW_FRESH_MS = 20;

/** The production controls: ChildCancels decides a start, holderAnswer answers a cancel. */
export const realStartControls: StartControlsFactory = (backend, poolId, shelf) => {
  const deciding = new Map<string, TaskRecord>();
  const started = new Map<string, TaskRecord>();
  const stores: Promise<unknown>[] = [];
  const cancels = new ChildCancels({
    backend,
    logger: quietLogger,
    poolId,
    cancelPoll: { everyMs: 60_000, requestTtlMs: 60_000, freshMs: VIEW_FRESH_MS },
    store: (record) => stores.push(backend.leases.acknowledge([record])),
    takeWaiting: (id, lease) => {
      const at = shelf.findIndex((record) => record.id === id && isLease(record, lease));
      return at < 0 ? undefined : shelf.splice(at, 1)[0];
    },
    // Nothing runs here: a started task's signal counts as aborted at once.
    stopRunning: (id, lease) => {
      const held = started.get(id) ?? deciding.get(id);
      if (!held || !isLease(held, lease)) return false;
      return started.has(id) ? true : null;
    },
    holding: () => deciding.size > 0 || started.size > 0 || shelf.length > 0,
  });
  return {
    async start(record, onStart) {
      deciding.set(record.id, record);
      await new Promise<void>((resolve) =>
        cancels.start(record, {
          held: () => deciding.has(record.id),
          start: () => {
            started.set(record.id, record);
            onStart();
            resolve();
          },
          cancelled: () => resolve(),
        }),
      );
      deciding.delete(record.id);
      // Its CANCELLED outcome is stored before the next operation, as a child's outcome queue would.
      await Promise.all(stores.splice(0));
    },
    async cancel(id) {
      return (await holderAnswer(backend, id, ANSWER_WITHIN_MS)).outcome;
    },
  };
};

const KINDS = ['enqueue', 'lease', 'start', 'cancel'] as const;
type Kind = (typeof KINDS)[number];

/** Rounds of two callers' operations, and the choices that order their store calls. */
interface Program {
  readonly rounds: readonly (readonly [
    readonly { kind: Kind; pick: number }[],
    readonly { kind: Kind; pick: number }[],
  ])[];
  readonly choices: readonly number[];
}

/** Random programs, drawn by `fc`. */
function programsOf(fc: FastCheck): Arbitrary<Program> {
  const spec = fc.record({ kind: fc.constantFrom(...KINDS), pick: fc.nat(3) });
  return fc.record({
    rounds: fc.array(
      fc.tuple(
        fc.array(spec, { minLength: 1, maxLength: 4 }),
        fc.array(spec, { minLength: 1, maxLength: 4 }),
      ),
      { minLength: 1, maxLength: 5 },
    ),
    choices: fc.array(fc.nat(), { maxLength: 64 }),
  });
}

/** One program's tasks, leases not started yet (by caller), and what happened, in order. */
interface Run {
  readonly alias: string;
  readonly pools: readonly string[];
  readonly ids: string[];
  readonly leased: TaskRecord[][];
  /** `answered <id>` and `started <id>`, in the order they happened. */
  readonly events: string[];
}

async function perform(
  run: Run,
  caller: number,
  backend: TaskBackend,
  controls: StartControls,
  kind: Kind,
  pick: number,
): Promise<void> {
  switch (kind) {
    case 'enqueue': {
      const record = readyRecord(run.alias, { name: 'contract.echo' });
      await backend.tasks.enqueue(record);
      run.ids.push(record.id);
      return;
    }
    case 'lease': {
      // A lease ahead of a free slot, as --prefetch takes it: held, not started.
      await backend.pools.beat(run.pools[caller], 600_000);
      const [record] = await backend.leases.acquire(['default'], {
        workerId: `host:${caller}-1`,
        max: 1,
        timeoutMs: 0,
        poolId: run.pools[caller],
      });
      if (record) run.leased[caller].push(record);
      return;
    }
    case 'start': {
      const [record] = run.leased[caller].splice(pick % Math.max(1, run.leased[caller].length), 1);
      if (record) await controls.start(record, () => run.events.push(`started ${record.id}`));
      return;
    }
    case 'cancel': {
      if (run.ids.length === 0) return;
      const id = run.ids[pick % run.ids.length];
      await controls.cancel(id);
      run.events.push(`answered ${id}`);
      return;
    }
  }
}

/** The tasks that started after a cancel of theirs had answered. */
function startedAfterAnswer(events: readonly string[]): string[] {
  const answered = new Set<string>();
  const late: string[] = [];
  for (const event of events) {
    const [what, id] = event.split(' ');
    if (what === 'answered') answered.add(id);
    else if (answered.has(id)) late.push(id);
  }
  return late;
}

/**
 * Random programs of two callers that enqueue, lease ahead of a slot, start
 * what they leased and cancel, their store calls in random orders: no task
 * starts after a cancel of it answered. Part of describeBackendContract,
 * run on every backend when fast-check is installed.
 */
export function describeCancelStarts(
  t: ContractRunner,
  subject: () => { backend: TaskBackend; alias: string; reopen?: () => Promise<TaskBackend> },
): void {
  const { it, expect } = t;
  describeWithFastCheck(
    t,
    'cancels racing the start of leased tasks, two callers at once',
    (fc) => {
      const programs = programsOf(fc);
      const check = async (controlsOf: StartControlsFactory, endOnFailure = false) => {
        const { backend, alias, reopen } = subject();
        const second = reopen ? await reopen() : backend;
        let runs = 0;
        try {
          return await fc.check(
            fc.asyncProperty(programs, async (program: Program) => {
              const run: Run = {
                alias,
                pools: [`starts-${runs}-a`, `starts-${runs++}-b`],
                ids: [],
                leased: [[], []],
                events: [],
              };
              await drainLeftovers(backend);
              const turns = new CallTurns(program.choices);
              for (const round of program.rounds) {
                await turns.run(
                  round.map((specs, caller) => async (operationStarts) => {
                    const gated = turns.gate([backend, second][caller], caller);
                    const controls = controlsOf(gated, run.pools[caller], run.leased[caller]);
                    for (const [i, { kind, pick }] of specs.entries()) {
                      operationStarts(i);
                      await perform(run, caller, gated, controls, kind, pick);
                    }
                  }),
                );
                const late = startedAfterAnswer(run.events);
                if (late.length > 0)
                  throw new Error(`started after its cancel answered: ${late.join(', ')}`);
              }
            }),
            // A fixed seed: the same programs on every run, so a failure is seen again.
            { numRuns: 60, seed: 20261206, endOnFailure },
          );
        } finally {
          if (second !== backend) await second.close();
        }
      };

      it('never starts a leased task after its cancel answered', async () => {
        const details = await check(realStartControls);
        const failure = details.failed
          ? `${fc.defaultReportMessage(details)}\n${String(details.errorInstance)}`
          : 'held';
        expect(failure).toBe('held');
      });

      it('catches the old prefetch start: a leased task started whatever a cancel had answered', async () => {
        const { oldPrefetchStart } = await import('./prefetch-start.mutant');
        const details = await check(oldPrefetchStart, true);
        expect(details.failed).toBe(true);
      });
    },
  );
}

/** Tasks an earlier program left READY: leased and ended, so a lease takes only this program's. */
async function drainLeftovers(backend: TaskBackend): Promise<void> {
  for (;;) {
    const [left] = await backend.leases.acquire(['default'], {
      workerId: 'host:9-9',
      max: 1,
      timeoutMs: 0,
    });
    if (!left) return;
    await backend.leases.acknowledge([
      { ...left, status: TaskResultStatus.CANCELLED, finishedAt: new Date() },
    ]);
  }
}
