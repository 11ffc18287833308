import type * as FastCheckModule from 'fast-check';

import { requireOptional } from '../../utils/require-optional.util';
import type { ContractRunner } from './contract-runner';

/** fast-check's API, as the random-program sections use it. */
export type FastCheck = typeof FastCheckModule;

/** Why a random-program section cannot run, and the two ways out. */
export const FAST_CHECK_MISSING =
  'This section runs random programs drawn by fast-check, an optional peer dependency of ' +
  '@threadmill/nestjs that is not installed. Install it beside your tests ' +
  '(npm install --save-dev fast-check), or pass { interleavings: false } to ' +
  'describeBackendContract to leave the random-program sections out.';

/**
 * `body`'s cases under `name`, with fast-check loaded then (never when the
 * suite is imported); without it, one case under that name that fails with
 * FAST_CHECK_MISSING, so a missing peer is said, not skipped in silence.
 */
export function describeWithFastCheck(
  t: ContractRunner,
  name: string,
  body: (fc: FastCheck) => void,
): void {
  t.describe(name, () => {
    const fc = requireOptional<FastCheck>('fast-check');
    if (fc) {
      body(fc);
      return;
    }
    t.it('needs fast-check', async () => {
      throw new Error(FAST_CHECK_MISSING);
    });
  });
}
