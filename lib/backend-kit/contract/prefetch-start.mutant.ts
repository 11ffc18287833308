import type { StartControlsFactory } from './start-controls';
import { decideCancel } from '../../lifecycle/cancel-decision';

/**
 * Test-only: a leased task's start and a cancel as they once were. The
 * child started a prefetched task the moment a slot freed, whatever a
 * cancel had answered meanwhile, and `cancel()` answered at once
 * (`requested`) without waiting for the holder. The cancel-start contract
 * must catch it.
 */
export const oldPrefetchStart: StartControlsFactory = (backend) => ({
  start: (_record, started) => Promise.resolve(started()),
  cancel: async (id) => (await backend.control.cancel(id, decideCancel)).outcome,
});
