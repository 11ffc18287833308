import type { TaskRecord } from '../../core/task-record.interface';

/** Consecutive records stored by one statement, or a keyed record alone. @internal */
export interface EnqueueRun {
  plain: boolean;
  records: TaskRecord[];
}

/**
 * The records in order, cut into runs: consecutive records without a unique
 * key and of distinct ids form one run (one insert stores them as storing
 * each alone would), and each keyed record is a run of its own. A repeated
 * id starts a new run, so the second is refused by the first as it would be
 * one after the other.
 *
 * @internal
 */
export function plainRuns(records: readonly TaskRecord[]): EnqueueRun[] {
  const runs: EnqueueRun[] = [];
  let ids = new Set<string>();
  for (const record of records) {
    const last = runs.at(-1);
    if (record.task.unique) {
      runs.push({ plain: false, records: [record] });
    } else if (last?.plain && !ids.has(record.id)) {
      last.records.push(record);
      ids.add(record.id);
    } else {
      runs.push({ plain: true, records: [record] });
      ids = new Set([record.id]);
    }
  }
  return runs;
}
