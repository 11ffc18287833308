import type { StoreRules } from '../core/ports/store-rules.port';
import { limitRoom } from './limit-room';
import { failedAttempt } from './retry-policy';
import { keyTakenBack, planUniqueEnqueue } from './unique-enqueue-plan';
import { leasedRecord, releasedRecord, unleasedRecord } from './unleased';

/** The rules every backend applies inside its atomic steps, each written once in this folder. */
export const storeRules: StoreRules = {
  failed: (record, thrown) => failedAttempt(record, thrown),
  leased: leasedRecord,
  released: releasedRecord,
  unleased: unleasedRecord,
  planUnique: planUniqueEnqueue,
  keyTakenBack,
  limitRoom,
};
