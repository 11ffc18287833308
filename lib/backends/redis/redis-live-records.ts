import type { Logger } from '@nestjs/common';

import type { TaskRecord } from '../../core/task-record.interface';
import type { RedisKeys } from './redis-keys';
import { RedisRecordCodec } from './redis-record.codec';
import { TASK_HASH_FIELDS } from './redis-task-hash';
import type { RedisClient } from './redis-clients';

/** A task a maintenance pass is about to settle: its record, or null where the data is gone or unreadable. */
export interface LiveEntry {
  id: string;
  record: TaskRecord | null;
}

/**
 * The live records of `ids`, read in one pipeline, for the reaper and pool
 * recovery (which decide each task's next step in TypeScript). A task whose
 * data cannot be read is logged and comes back as null, so it is failed
 * rather than left running.
 *
 * @internal
 */
export async function readLiveRecords(
  client: RedisClient,
  keys: RedisKeys,
  codec: RedisRecordCodec,
  logger: Logger,
  ids: readonly string[],
): Promise<LiveEntry[]> {
  if (ids.length === 0) return [];
  const pipeline = client.pipeline();
  for (const id of ids) pipeline.hmget(keys.task(id), ...TASK_HASH_FIELDS);
  const replies = (await pipeline.exec()) ?? [];
  return ids.map((id, i) => {
    const [error, value] = replies[i] ?? [null, null];
    const fields = error ? null : (value as (string | null)[]);
    try {
      const record = codec.decodeLive(
        id,
        fields?.[0] ?? null,
        RedisRecordCodec.mutableFields(fields),
      );
      return { id, record };
    } catch (readError) {
      logger.warn(`task ${id} has unreadable data: ${String(readError)}`);
      return { id, record: null };
    }
  });
}
