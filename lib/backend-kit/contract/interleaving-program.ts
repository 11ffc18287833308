import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';

import { TaskResultDoesNotExist } from '../../core/errors/task-result-does-not-exist.error';
import { failedAttempt } from '../../lifecycle/retry-policy';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { TaskControlService } from '../../task/task-control.service';
import { readyRecord } from './ready-record';
import { CallTurns } from './call-turns';
import {
  acknowledged,
  acquired,
  cancelled,
  emptyModel,
  enqueued,
  enqueuedKeyed,
  maintained,
  paused,
  removed,
  retried,
  taskOf,
  type Model,
  type ModelStatus,
} from './interleaving-model';
import { replay, type ModelOperation } from './interleaving-replay';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { decideCancel } from '../../lifecycle/cancel-decision';

/** What the interleaving contract is run on; `reopen` gives the second caller its own connection. */
export interface InterleavingSubject {
  backend: TaskBackend;
  alias: string;
  reopen?: () => Promise<TaskBackend>;
}

/** The controls a caller uses over a backend: the real service, or a test-only variant. */
export type ControlFactory = (backend: TaskBackend) => TaskControlService;

/** The operations a program is made of, each by one caller. */
export const KINDS = [
  'enqueue',
  'enqueueKeyed',
  'acquire',
  'succeed',
  'fail',
  'cancel',
  'retry',
  'remove',
  'pause',
  'resume',
  'maintain',
] as const;
export type Kind = (typeof KINDS)[number];
export interface Spec {
  readonly kind: Kind;
  /** Which task (or held attempt) it acts on, modulo how many there are when it starts. */
  readonly pick: number;
}

/** A program: rounds of two callers' operations, and the choices that order their store calls. */
export interface Program {
  readonly rounds: readonly (readonly [readonly Spec[], readonly Spec[]])[];
  readonly choices: readonly number[];
}

/** A run's state on the test's side: its tasks, and the attempts workers hold. */
interface Run {
  readonly alias: string;
  readonly ids: string[];
  /** Leased attempts not acknowledged yet. */
  readonly held: TaskRecord[];
  /** This run's unique keys start with it: an earlier run's tasks may still hold theirs. */
  readonly keyPrefix: string;
  /** Each caller's pool (this run's own: an earlier run's pools may still hold tasks). */
  readonly pools: readonly string[];
  model: Model;
  /** A maintenance pass by `caller`, as one store call: the model replays a pass whole. */
  readonly maintain: (caller: number) => Promise<unknown>;
}

const outcomeOf = async (call: () => Promise<string>): Promise<string> => {
  try {
    return await call();
  } catch (error) {
    if (error instanceof TaskResultDoesNotExist) return 'missing';
    throw error;
  }
};

/** Runs `spec` on `backend`/`control` now: the operation as the model replays it, with the store's answer. */
async function perform(
  run: Run,
  caller: number,
  backend: TaskBackend,
  control: TaskControlService,
  { kind, pick }: Spec,
): Promise<ModelOperation> {
  const id = run.ids.length === 0 ? 'none-yet' : run.ids[pick % run.ids.length];
  const label = `${kind} ${id}`;
  switch (kind) {
    case 'enqueue': {
      const record = readyRecord(run.alias, { name: 'contract.echo' });
      run.ids.push(record.id);
      await backend.tasks.enqueue(record);
      return { label: `enqueue ${record.id}`, steps: enqueued(record.id), outcome: 'stored' };
    }
    case 'enqueueKeyed': {
      const plain = readyRecord(run.alias, { name: 'contract.echo' });
      const unique = { key: `${run.keyPrefix}:k${pick % 2}`, mode: 'unfinished' as const };
      const record = { ...plain, task: { ...plain.task, unique } };
      const stored = await backend.tasks.enqueue(record);
      const created = stored.id === record.id;
      if (created) run.ids.push(record.id);
      return {
        label: `enqueue ${record.id} keyed ${unique.key}`,
        steps: enqueuedKeyed(record.id, unique.key),
        outcome: created ? 'created' : `holder ${stored.id}`,
      };
    }
    case 'acquire': {
      await backend.pools.beat(run.pools[caller], 600_000);
      const [record] = await backend.leases.acquire(['default'], {
        workerId: `host:${caller}-0`,
        max: 1,
        timeoutMs: 0,
        poolId: run.pools[caller],
      });
      if (record) run.held.push(record);
      return {
        label: `acquire ${record?.id ?? 'nothing'} for pool ${caller}`,
        steps: acquired(record?.id ?? null, caller),
        outcome: record ? 'leased' : 'none',
      };
    }
    case 'maintain': {
      // The pool's heartbeat lapses (1 ms), then a maintenance pass recovers lapsed pools.
      await backend.pools.beat(run.pools[caller], 1);
      await delay(5);
      await run.maintain(caller);
      return {
        label: `maintain, pool ${caller} lapsed`,
        steps: maintained(caller),
        outcome: 'done',
      };
    }
    case 'succeed':
    case 'fail': {
      const [record] = run.held.splice(pick % Math.max(1, run.held.length), 1);
      if (!record) return { label: `${kind} nothing held`, steps: [], outcome: 'none' };
      const status = kind === 'succeed' ? TaskResultStatus.SUCCESSFUL : TaskResultStatus.FAILED;
      const finished =
        kind === 'succeed'
          ? { ...record, status, finishedAt: new Date(), returnValue: null }
          : failedAttempt(record, new Error('boom'));
      const [outcome] = await backend.leases.acknowledge([finished]);
      // Its attempt is the one its lease counted.
      const steps = acknowledged(record.id, status, record.workerIds.length);
      return { label: `${kind} ${record.id}`, steps, outcome };
    }
    case 'cancel':
      return {
        label,
        steps: cancelled(id),
        outcome: await outcomeOf(
          async () => (await backend.control.cancel(id, decideCancel)).outcome,
        ),
      };
    case 'retry':
      return {
        label,
        steps: retried(id),
        outcome: await outcomeOf(async () => (await control.retry(id)).outcome),
      };
    case 'remove':
      return { label, steps: removed(id), outcome: await outcomeOf(() => control.remove(id)) };
    case 'pause':
    case 'resume':
      await (kind === 'pause'
        ? backend.control.pauseQueue('default')
        : backend.control.resumeQueue('default'));
      return { label, steps: paused(kind === 'pause'), outcome: 'done' };
  }
}

/** Why the store's states are not the model's, or null when they are. */
async function stateMismatch(backend: TaskBackend, run: Run): Promise<string | null> {
  for (const id of run.ids) {
    const expected = taskOf(run.model, id);
    let status: ModelStatus = 'GONE';
    let attempts = 0;
    try {
      const record = await backend.tasks.getResult(id);
      status = record.status;
      attempts = record.workerIds.length;
    } catch (error) {
      if (!(error instanceof TaskResultDoesNotExist)) throw error;
    }
    // A removed task's attempts are gone with it.
    if (status !== expected.status || (status !== 'GONE' && attempts !== expected.attempts)) {
      return `task ${id} is ${status} after ${attempts} attempt(s); the model says ${expected.status} after ${expected.attempts}`;
    }
  }
  return null;
}

/**
 * Runs `program` from an empty queue with two callers, their store calls
 * one at a time in the order its choices give; throws, naming the round,
 * at the first the model does not explain.
 */
export async function runProgram(
  subject: InterleavingSubject,
  backends: readonly [TaskBackend, TaskBackend],
  controlOf: ControlFactory,
  program: Program,
): Promise<void> {
  const { backend, alias } = subject;
  await backend.control.resumeQueue('default');
  // Leftovers of an earlier run end first, so an acquire can only take this run's tasks.
  for (;;) {
    const [left] = await backend.leases.acquire(['default'], {
      workerId: 'host:1-9',
      max: 1,
      timeoutMs: 0,
    });
    if (!left) break;
    await backend.leases.acknowledge([failedAttempt(left, new Error('leftover'))]);
  }
  const keyPrefix = randomUUID();
  const turns = new CallTurns(program.choices);
  const run: Run = {
    alias,
    ids: [],
    held: [],
    keyPrefix,
    pools: [`${keyPrefix}-a`, `${keyPrefix}-b`],
    model: emptyModel(),
    maintain: (caller) =>
      turns.call(caller, 'maintenancePass', () => runMaintenancePass(backends[caller])),
  };
  for (const [index, round] of program.rounds.entries()) {
    const results = await turns.run(
      round.map((specs, caller) => async (operationStarts: (operation: number) => void) => {
        const gated = turns.gate(backends[caller], caller);
        const control = controlOf(gated);
        const done: ModelOperation[] = [];
        for (const [i, one] of specs.entries()) {
          operationStarts(i);
          done.push(await perform(run, caller, gated, control, one));
        }
        return done;
      }),
    );
    const next = replay(run.model, results, turns.calls);
    const why =
      typeof next === 'string' ? next : ((run.model = next), await stateMismatch(backend, run));
    if (why !== null) {
      const ops = results.map(
        (ops, c) => `caller ${c}: ${ops.map((o) => `${o.label} → ${o.outcome}`).join(', ')}`,
      );
      throw new Error(
        `round ${index}: ${why}\n${ops.join('\n')}\ncalls: ${turns.calls.map((c) => `${c.caller}.${c.method}`).join(' ')}`,
      );
    }
  }
}
