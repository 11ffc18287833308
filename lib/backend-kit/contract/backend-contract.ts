import { randomUUID } from 'node:crypto';

import { InvalidBackendConfigError } from '../../core/errors/invalid-backend-config.error';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { ContractRunner } from './contract-runner';
import { describeLeaseEnds } from './acknowledge-contract';
import { describeEnqueueAndAcquire } from './acquire-contract';
import {
  CONTRACT_QUEUES,
  type ContractFactory,
  type ContractOptions,
  type ContractSettings,
  type ContractSubject,
} from './contract-subject';
import { describeRecovery } from './recovery-contract';
import { describeRetention } from './retention-contract';
import { describeRetries } from './retry-contract';
import { describeAcknowledgeRefusals } from './acknowledge-refusal-contract';
import { describeCancels } from './cancel-contract';
import { describeCancelStarts } from './cancel-start-contract';
import { describeConcurrentEnqueues } from './coalesce-contract';
import { describeFinishedFeed } from './feed-contract';
import { describeGuard } from './guard-contract';
import { describeLiveFeed } from './live-feed-contract';
import { describeInterleavings } from './interleaving-contract';
import { describeManualControl } from './manual-contract';
import { describeUnknownTaskPutBacks } from './unknown-task-contract';
import { describeLimits } from './limit-contract';
import { describeListing } from './listing-contract';
import { describePauses } from './pause-contract';
import { describePoolsAndActivity } from './pool-activity-contract';
import { describeProgress } from './progress-contract';
import { describeRepeats } from './repeat-contract';
import { describeRoles } from './role-contract';
import { describeScheduleStore } from './schedule-contract';
import { describeTraceContexts } from './trace-contract';
import { describeUniqueKeys } from './unique-contract';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';

export {
  newRecord,
  type ContractFactory,
  type ContractOptions,
  type ContractSettings,
  type ContractSubject,
} from './contract-subject';

/**
 * The behaviour every TaskBackend must have, written once and run against
 * each backend (memory, Redis, SQLite). A backend-specific suite adds what
 * only that store can show (keys, files, cluster).
 *
 * @param runner the test runner's functions the cases are registered with.
 * @param label names the suite: `<label> backend contract`.
 * @param factory builds a fresh backend for each test, as `settings` say.
 * @param options `interleavings: false` leaves out the sections that need fast-check.
 */
export function describeBackendContract(
  runner: ContractRunner,
  label: string,
  factory: ContractFactory,
  options: ContractOptions = {},
): void {
  const { describe, it, expect, beforeEach, afterEach } = runner;
  describe(`${label} backend contract`, () => {
    const subjects: ContractSubject[] = [];
    let backend: TaskBackend;
    let alias: string;

    async function build(overrides: Partial<ContractSettings> = {}): Promise<TaskBackend> {
      const settings: ContractSettings = {
        alias: `t-${randomUUID()}`,
        queues: CONTRACT_QUEUES,
        leaseTtl: 60_000,
        resultTtl: 60_000,
        maintenanceInterval: 1000,
        batchSize: 100,
        ...overrides,
      };
      const subject = await factory(settings);
      subjects.push(subject);
      return subject.backend;
    }

    beforeEach(async () => {
      backend = await build();
      alias = backend.alias;
    });

    afterEach(async () => {
      for (const subject of subjects.splice(0)) {
        await subject.cleanup();
        await subject.backend.close();
      }
    });

    const section = () => ({ backend, alias, build });
    describeEnqueueAndAcquire(runner, section);
    describeLeaseEnds(runner, section);
    describeRetention(runner, section);
    describeRetries(runner, section);
    describeRecovery(runner, section);

    describe('configuration', () => {
      // The same mistakes refused the same way on every backend, each naming alias and option.
      const mistakes: [string, Partial<ContractSettings>, RegExp][] = [
        ['a queue name with a space', { queues: ['bad name!'] }, /option "queues" is invalid/],
        ['a queue listed twice', { queues: ['a', 'a'] }, /option "queues" lists a queue twice/],
        ['no queue', { queues: [] }, /option "queues" must be a non-empty array/],
        ['a lease of 1.5 ms', { leaseTtl: 1.5 }, /option "leaseTtl" must be a positive whole/],
        ['a negative result TTL', { resultTtl: -1 }, /option "resultTtl" must be a positive whole/],
        [
          'a batch of 0',
          { batchSize: 0 },
          /option "batchSize" must be a whole number of at least 1/,
        ],
      ];
      for (const [what, overrides, message] of mistakes) {
        it(`refuses ${what}`, async () => {
          const refused = await build(overrides).catch((e: unknown) => e);
          expect(refused).toBeInstanceOf(InvalidBackendConfigError);
          expect((refused as Error).message).toMatch(message);
          expect((refused as Error).message).toMatch(/^Threadmill backend "t-/);
        });
      }

      it('refuses an alias that is not a valid name', async () => {
        const refused = await build({ alias: 'bad alias!' }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(InvalidBackendConfigError);
        expect((refused as Error).message).toMatch(/backend alias/);
      });
    });

    describeAcknowledgeRefusals(runner, () => ({ backend, alias }));
    describeGuard(runner, () => ({ backend, alias, fresh: () => build() }));
    describeRepeats(runner, () => ({ backend, alias }));
    describeCancels(runner, () => ({ backend, alias }));
    describeFinishedFeed(runner, () => ({ backend, alias, reopen: subjects[0]?.reopen, build }));
    describeLiveFeed(runner, () => ({ backend, alias, reopen: subjects[0]?.reopen }));
    describeProgress(runner, () => ({ backend, alias }));
    describeManualControl(runner, () => ({ backend, alias }));
    describeUnknownTaskPutBacks(runner, () => ({ backend, alias }));
    describePauses(runner, () => ({ backend, alias, reopen: subjects[0]?.reopen }));
    describeLimits(runner, () => ({ backend, alias, reopen: subjects[0]?.reopen, build }));
    describeScheduleStore(runner, () => ({ backend }));
    describeUniqueKeys(runner, () => ({ backend, alias, build }));
    describeConcurrentEnqueues(runner, () => ({ backend, alias, build }));
    describeTraceContexts(runner, () => ({ backend, alias }));
    describeRoles(runner, () => ({ backend, reopen: subjects[0]?.reopen }));
    describeListing(runner, () => ({ backend, alias }));
    describePoolsAndActivity(runner, () => ({ backend, alias }));
    if (options.interleavings !== false) {
      describeInterleavings(runner, () => ({ backend, alias, reopen: subjects[0]?.reopen }));
      describeCancelStarts(runner, () => ({ backend, alias, reopen: subjects[0]?.reopen }));
    }

    describe('maintenance pass', () => {
      it('has no heartbeat before its first pass, and a fresh one after', async () => {
        await expect(backend.reads.maintenanceHeartbeat()).resolves.toBeNull();
        const before = Date.now();
        await runMaintenancePass(backend);
        const heartbeat = await backend.reads.maintenanceHeartbeat();
        expect(heartbeat).toBeInstanceOf(Date);
        expect(heartbeat!.getTime()).toBeGreaterThanOrEqual(before - 5);
      });

      it('answers a ping', async () => {
        await expect(backend.ping()).resolves.toBeUndefined();
      });
    });
  });
}
