import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import type { ContractRunner } from './contract-runner';
import type { ContractSettings, SectionSubject } from './contract-subject';

/** What a section's cases run on: the case's backend (a case may swap in one it built) and alias. */
export interface SectionCase {
  backend: TaskBackend;
  alias: string;
  /** Another backend on the case's store, configured as `overrides` say. */
  build(overrides?: Partial<ContractSettings>): Promise<TaskBackend>;
  /** Leases the one ready task of `queues`, failing the case unless there is exactly one. */
  acquireOne(queues?: string[], workerId?: string): Promise<TaskRecord>;
}

/** The case each test of a section runs on, taken from `subject` before each test. */
export function sectionCase(t: ContractRunner, subject: () => SectionSubject): SectionCase {
  const current: SectionCase = {
    backend: undefined as unknown as TaskBackend,
    alias: '',
    build: (overrides) => subject().build(overrides),
    acquireOne: async (queues = ['default'], workerId = 'host:1-0') => {
      const acquired = await current.backend.leases.acquire(queues, { workerId, timeoutMs: 0 });
      t.expect(acquired).toHaveLength(1);
      return acquired[0];
    },
  };
  t.beforeEach(async () => {
    ({ backend: current.backend, alias: current.alias } = subject());
  });
  return current;
}
