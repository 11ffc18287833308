import { join } from 'node:path';

import { verifyModel } from '../../helpers/spin-model';

// model/outbox-relay.pml checked by Debian's spin: each committed task moved
// into Redis once, no rolled-back one, none lost, whatever relay dies, loses
// its lock or stalls past the marks' expiry; and mutants of it that those
// checks must catch.

const MODEL = join(__dirname, '../../../model/outbox-relay.pml');
const verify = (defines: string[] = []) => verifyModel(MODEL, defines);

describe('the outbox relay model (spin)', () => {
  jest.setTimeout(60_000);

  it('holds every invariant in every state it reaches', async () => {
    const { errors, report } = await verify();
    expect(errors === 0 ? 'no errors' : report).toBe('no errors');
    expect(report).not.toContain('search depth too small');
  });

  it('catches a move without the moved-id mark (a redelivered row stored twice)', async () => {
    const { errors, report } = await verify(['MUTANT_NO_MARK']);
    expect(errors).toBeGreaterThan(0);
    expect(report).toContain('assertion violated (stored[t]<=1)');
  });

  it('catches a relay that reads from a high-water mark (a row that commits late is skipped)', async () => {
    const { errors, report } = await verify(['MUTANT_HIGH_WATER']);
    expect(errors).toBeGreaterThan(0);
    expect(report).toContain('assertion violated ((row[t]==4)&&(stored[t]==1))');
  });

  it('catches a move without the fence (a relay replaced between its read and its move stores again)', async () => {
    const { errors, report } = await verify(['MUTANT_NO_FENCE']);
    expect(errors).toBeGreaterThan(0);
    expect(report).toContain('assertion violated (stored[t]<=1)');
  });

  it('catches a mark that expires while its task can still be moved again', async () => {
    const { errors, report } = await verify(['MUTANT_SHORT_MARK']);
    expect(errors).toBeGreaterThan(0);
    expect(report).toContain('assertion violated (stored[t]<=1)');
  });
});
