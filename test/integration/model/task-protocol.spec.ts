import { join } from 'node:path';

import { verifyModel } from '../../helpers/spin-model';

// model/task-protocol.pml checked by Debian's spin: its own assertions in
// every state reached, and mutants of it that they must catch.

const MODEL = join(__dirname, '../../../model/task-protocol.pml');
const verify = (defines: string[] = []) => verifyModel(MODEL, defines);

describe('the task protocol model (spin)', () => {
  jest.setTimeout(60_000);

  it('holds every invariant in every state it reaches', async () => {
    const { errors, report } = await verify();
    expect(errors === 0 ? 'no errors' : report).toBe('no errors');
    expect(report).not.toContain('search depth too small');
  });

  it('catches a retry that reads again after a lost store and retries the attempt it then finds', async () => {
    const { errors, report } = await verify(['MUTANT_RETRY_LOOP']);
    expect(errors).toBeGreaterThan(0);
    expect(report).toContain('assertion violated  !(moved[r])');
  });

  it('spin catches the old prefetch start (a cancelled prefetched task started)', async () => {
    const { errors, report } = await verify(['MUTANT_PREFETCH_START']);
    expect(errors).toBeGreaterThan(0);
    expect(report).toContain('assertion violated  !(answered[t])');
  });
});
