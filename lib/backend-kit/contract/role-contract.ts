import type { TaskBackend } from '../../core/task-backend.interface';
import { waitFor } from './wait-for';
import type { ContractRunner } from './contract-runner';

/** What the role contract needs of the backend under test. */
export interface RoleSubject {
  backend: TaskBackend;
  /** A second backend on the same store (the caller closes it); absent when nothing outlives an instance. */
  reopen?: () => Promise<TaskBackend>;
}

/**
 * The contract for roles (`claimRole`): one holder at a time per role, a
 * holder renews its own claim, and another takes the role once the holder's
 * lease ran out. Part of describeBackendContract, run on every backend.
 */
export function describeRoles(t: ContractRunner, subject: () => RoleSubject): void {
  const { describe, it, expect } = t;
  describe('roles', () => {
    it('gives a role to one holder at a time; the holder renews it, others are refused', async () => {
      const { backend } = subject();
      await expect(backend.pools.claimRole('gauges', 'pool-a', 60_000)).resolves.toBe(true);
      await expect(backend.pools.claimRole('gauges', 'pool-b', 60_000)).resolves.toBe(false);
      await expect(backend.pools.claimRole('gauges', 'pool-a', 60_000)).resolves.toBe(true);
      await expect(backend.pools.claimRole('gauges', 'pool-b', 60_000)).resolves.toBe(false);
    });

    it('keeps roles apart: another role is free for another holder', async () => {
      const { backend } = subject();
      await expect(backend.pools.claimRole('gauges', 'pool-a', 60_000)).resolves.toBe(true);
      await expect(backend.pools.claimRole('other', 'pool-b', 60_000)).resolves.toBe(true);
      await expect(backend.pools.claimRole('other', 'pool-a', 60_000)).resolves.toBe(false);
    });

    it('hands the role to another holder once the holder stopped claiming past its lease', async () => {
      const { backend } = subject();
      await expect(backend.pools.claimRole('gauges', 'pool-a', 200)).resolves.toBe(true);
      await expect(backend.pools.claimRole('gauges', 'pool-b', 200)).resolves.toBe(false);
      // pool-a stops claiming (it died): pool-b, claiming at each scrape, gets it after the lease.
      await waitFor(() => backend.pools.claimRole('gauges', 'pool-b', 60_000), {
        timeoutMs: 5000,
        intervalMs: 50,
        what: 'pool-b to take the role after pool-a lease ran out',
      });
      await expect(backend.pools.claimRole('gauges', 'pool-a', 60_000)).resolves.toBe(false);
    });

    it('is one role for every process of the store', async () => {
      const { reopen, backend } = subject();
      if (!reopen) return;
      const other = await reopen();
      try {
        await expect(backend.pools.claimRole('gauges', 'pool-a', 60_000)).resolves.toBe(true);
        await expect(other.pools.claimRole('gauges', 'pool-b', 60_000)).resolves.toBe(false);
        await expect(other.pools.claimRole('gauges', 'pool-a', 60_000)).resolves.toBe(true);
      } finally {
        await other.close();
      }
    });
  });
}
