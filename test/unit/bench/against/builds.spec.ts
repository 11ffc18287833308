import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadBuild } from '../../../../bench/against/builds';

/**
 * The entry point of a build as old refs have it: a RedisBackend with the
 * TaskBackend methods the A/B mode drives, and `exports` of its own besides.
 */
function olderEntry(exports: string): string {
  return `
class RedisBackend {
  ping() {}
  enqueue() {}
  enqueueMany() {}
  acknowledge() {}
  acknowledgeAndAcquire() {}
  close() {}
}
exports.RedisBackend = RedisBackend;
${exports}
`;
}

describe('bench --against: loading the other build', () => {
  let folder: string;
  beforeEach(() => (folder = mkdtempSync(join(tmpdir(), 'threadmill-bench-build-'))));
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  const load = (exports: string): (() => unknown) => {
    const entry = join(folder, 'index.js');
    writeFileSync(entry, olderEntry(exports));
    return () => loadBuild('ref', 'HEAD~9 (abc1234)', folder, entry, null, () => undefined);
  };

  it('names everything the enqueue figures go through that a build does not export', () => {
    expect(load('')).toThrow(
      `HEAD~9 (abc1234): ${join(folder, 'index.js')} exports no ThreadmillModule.forRoot, ` +
        'TaskService.enqueue, TaskService.enqueueMany, Task, which the enqueue figures go through',
    );
  });

  it('names a TaskService without enqueueMany', () => {
    const exports = `
exports.ThreadmillModule = class ThreadmillModule { static forRoot() {} };
exports.TaskService = class TaskService { enqueue() {} };
exports.Task = () => () => undefined;
`;
    expect(load(exports)).toThrow(/exports no TaskService\.enqueueMany, which the enqueue figures/);
  });
});
