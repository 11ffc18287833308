import { join } from 'node:path';

import { formatSlowestSuites, slowestSuites, type TimedTestFile } from '../../setup/slowest-suites';

const ROOT = '/repo';

const file = (path: string, ms: number, project?: string): TimedTestFile => ({
  testFilePath: join(ROOT, path),
  ...(project === undefined ? {} : { displayName: { name: project } }),
  perfStats: { start: 1_000, end: 1_000 + ms },
});

describe('slowestSuites', () => {
  it('lists the slowest files first, relative to the root, with their project', () => {
    const suites = slowestSuites(
      [
        file('test/unit/a.spec.ts', 120, 'unit'),
        file('test/e2e/b.e2e-spec.ts', 9_500, 'e2e'),
        file('test/chaos/c.chaos-spec.ts', 30_250, 'chaos'),
      ],
      ROOT,
    );
    expect(suites).toEqual([
      { file: 'test/chaos/c.chaos-spec.ts', project: 'chaos', ms: 30_250 },
      { file: 'test/e2e/b.e2e-spec.ts', project: 'e2e', ms: 9_500 },
      { file: 'test/unit/a.spec.ts', project: 'unit', ms: 120 },
    ]);
  });

  it('keeps only the requested number, ten by default', () => {
    const files = Array.from({ length: 14 }, (_, i) => file(`test/unit/${i}.spec.ts`, i * 10));
    expect(slowestSuites(files, ROOT)).toHaveLength(10);
    expect(slowestSuites(files, ROOT, 3).map((suite) => suite.ms)).toEqual([130, 120, 110]);
  });

  it('orders files of equal time by path, and names no project when jest gave none', () => {
    const suites = slowestSuites([file('test/b.spec.ts', 50), file('test/a.spec.ts', 50)], ROOT);
    expect(suites).toEqual([
      { file: 'test/a.spec.ts', project: '', ms: 50 },
      { file: 'test/b.spec.ts', project: '', ms: 50 },
    ]);
  });
});

describe('formatSlowestSuites', () => {
  it('aligns seconds and projects, and closes with the wall time and the sum', () => {
    const lines = formatSlowestSuites(
      [
        { file: 'test/chaos/c.chaos-spec.ts', project: 'chaos', ms: 130_250 },
        { file: 'test/unit/a.spec.ts', project: 'unit', ms: 120 },
      ],
      { wallMs: 400_000, totalMs: 700_040, fileCount: 42 },
    );
    expect(lines).toEqual([
      'Slowest 2 of 42 test files:',
      '  130.3 s  chaos  test/chaos/c.chaos-spec.ts',
      '    0.1 s  unit   test/unit/a.spec.ts',
      'Total: 400.0 s wall time, 700.0 s summed over all files.',
    ]);
  });

  it('leaves the project column out when no suite has one', () => {
    const lines = formatSlowestSuites([{ file: 'test/a.spec.ts', project: '', ms: 2_000 }], {
      wallMs: 2_500,
      totalMs: 2_000,
      fileCount: 1,
    });
    expect(lines[1]).toBe('  2.0 s  test/a.spec.ts');
  });
});
