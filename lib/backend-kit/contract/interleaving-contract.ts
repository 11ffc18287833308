import type { Arbitrary } from 'fast-check';

import { BackendRegistry } from '../../backends/backend.registry';
import { TaskControlService } from '../../task/task-control.service';
import type { ContractRunner } from './contract-runner';
import { describeWithFastCheck, type FastCheck } from './fast-check.loader';
import {
  KINDS,
  runProgram,
  type ControlFactory,
  type InterleavingSubject,
  type Kind,
  type Program,
} from './interleaving-program';
import { LoopingRetryControl } from './retry-loop.mutant';

/** How often each kind comes: the controls most, and always something for them to act on. */
const WEIGHTS: Record<Kind, number> = {
  enqueue: 2,
  enqueueKeyed: 2,
  acquire: 2,
  succeed: 1,
  fail: 2,
  cancel: 1,
  retry: 3,
  remove: 2,
  pause: 1,
  resume: 1,
  maintain: 1,
};

/** Random programs, drawn by `fc`. */
function programsOf(fc: FastCheck): Arbitrary<Program> {
  const spec = fc.record({
    kind: fc.oneof(
      ...KINDS.map((kind) => ({ arbitrary: fc.constant(kind), weight: WEIGHTS[kind] })),
    ),
    // Few tasks, so two callers often act on the same one.
    pick: fc.nat(3),
  });
  /** Rounds of two callers, each running a few operations one after the other, both at once. */
  const rounds = fc.array(
    fc.tuple(
      fc.array(spec, { minLength: 1, maxLength: 3 }),
      fc.array(spec, { minLength: 1, maxLength: 3 }),
    ),
    { minLength: 1, maxLength: 6 },
  );
  return fc.record({ rounds, choices: fc.array(fc.nat(), { maxLength: 64 }) });
}

/**
 * Random programs of enqueue (with a unique key or without), acquire,
 * acknowledge, cancel, retry and remove by hand, pause and resume, and a
 * maintenance step that recovers a lapsed pool, two callers at once with their store
 * calls in random orders, each replayed on the sequential model
 * (interleaving-model.ts). Part of describeBackendContract, run on every backend
 * when fast-check is installed.
 */
export function describeInterleavings(t: ContractRunner, subject: () => InterleavingSubject): void {
  const { it, expect } = t;
  describeWithFastCheck(t, 'two callers at once, against the sequential model', (fc) => {
    const programs = programsOf(fc);
    /** The property on this backend and a second caller over it, with `controlOf`'s controls. */
    const check = async (controlOf: ControlFactory, endOnFailure = false) => {
      const { backend, reopen } = subject();
      const second = reopen ? await reopen() : backend;
      try {
        return await fc.check(
          fc.asyncProperty(programs, (program) =>
            runProgram(subject(), [backend, second], controlOf, program),
          ),
          // A fixed seed: the same programs on every run, so a failure is seen again.
          { numRuns: 100, seed: 4, endOnFailure },
        );
      } finally {
        if (second !== backend) await second.close();
      }
    };

    it('explains every order of the store calls of random programs', async () => {
      const details = await check((b) => new TaskControlService(new BackendRegistry([b])));
      const failure = details.failed
        ? `${fc.defaultReportMessage(details)}\n${String(details.errorInstance)}`
        : 'explained';
      expect(failure).toBe('explained');
    });

    it('catches a retry that reads again after a lost store and retries the attempt it then finds', async () => {
      const details = await check((b) => new LoopingRetryControl(b), true);
      expect(details.failed).toBe(true);
    });
  });
}
