import { plainRuns } from '../../../../lib/backends/postgres/postgres-enqueue-runs';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { readyRecord } from '../../../helpers/ready-record';

const plain = (id: string): TaskRecord => readyRecord('a', { id });
const keyed = (id: string): TaskRecord => {
  const record = readyRecord('a', { id });
  return { ...record, task: { ...record.task, unique: { key: `k-${id}` } } } as TaskRecord;
};
const shape = (records: TaskRecord[]) =>
  plainRuns(records).map(
    (run) => `${run.plain ? 'plain' : 'keyed'}:${run.records.map((r) => r.id).join(',')}`,
  );

describe('plainRuns', () => {
  it('stores consecutive keyless records of distinct ids together', () => {
    expect(shape([plain('1'), plain('2'), plain('3')])).toEqual(['plain:1,2,3']);
  });

  it('keeps each keyed record alone, in its place', () => {
    expect(shape([plain('1'), keyed('2'), plain('3'), plain('4')])).toEqual([
      'plain:1',
      'keyed:2',
      'plain:3,4',
    ]);
  });

  it('starts a new run at a repeated id, so the later one is refused as it would be alone', () => {
    expect(shape([plain('1'), plain('2'), plain('1'), plain('3')])).toEqual([
      'plain:1,2',
      'plain:1,3',
    ]);
  });

  it('makes no run of nothing', () => {
    expect(plainRuns([])).toEqual([]);
  });
});
