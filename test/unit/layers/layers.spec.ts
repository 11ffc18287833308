import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { checkLayers, problems } from '../../../scripts/layers/check-layers';
import { LEVELS, type Layer } from '../../../scripts/layers/layers.config';

// lib/'s layers (scripts/layers/layers.config.ts) as `npm run lint` checks
// them, run here too since CI runs only `npm test`.

const REPO = join(__dirname, '..', '..', '..');

describe("lib/'s layers", () => {
  it('hold: every file placed, no import of a layer above or beside, no cycle', () => {
    // Each line names the import to remove; see docs/architecture.md#layers.
    expect(problems(checkLayers(REPO))).toEqual([]);
  });

  it('are the ones docs/architecture.md lists, bottom to top', () => {
    const page = readFileSync(join(REPO, 'docs', 'architecture.md'), 'utf8');
    const section = /^## Layers\n([\s\S]*?)(?=^## )/m.exec(page)?.[1] ?? '';
    const rows = section
      .split('\n')
      .filter((line) => /^\| \d+ /.test(line))
      .map((line) => line.split('|')[2].trim());
    const names = LEVELS.map((layers) => layers.map((layer) => `\`${layer.name}\``).join(', '));
    expect(rows).toEqual(names);
  });
});

describe('the layer check', () => {
  const levels: Layer[][] = [
    [{ name: 'base', holds: ['lib/base/'], why: '' }],
    [
      { name: 'left', holds: ['lib/left/'], why: '' },
      { name: 'right', holds: ['lib/right/', 'lib/gone/'], why: '' },
    ],
    [{ name: 'top', holds: ['lib/top.ts'], why: '' }],
  ];
  let root: string;

  const write = (files: Record<string, string>): void => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'threadmill-layers-'));
    write({
      'tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'commonjs', moduleResolution: 'node', strict: true },
      }),
      'lib/base/a.ts': 'export const a = 1;\n',
      'lib/left/b.ts': "import { a } from '../base/a';\nexport const b = a;\n",
      'lib/right/c.ts': 'export const c = 1;\n',
      'lib/top.ts': "export * from './left/b';\nexport { c } from './right/c';\n",
    });
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('passes imports of the own layer and of lower levels', () => {
    expect(problems(checkLayers(root, levels))).toEqual([]);
  });

  it('names an import of a level above, type-only ones included', () => {
    write({ 'lib/base/a.ts': "import type { b } from '../left/b';\nexport const a = 1;\n" });
    const report = checkLayers(root, levels);
    expect(report.upward).toEqual([
      'lib/base/a.ts:1 imports lib/left/b.ts (type-only): base imports left, above it',
    ]);
  });

  it('names an import of a layer beside, found through import(), require() and typeof import()', () => {
    write({
      'lib/left/d.ts': [
        "export const load = () => import('../right/c');",
        "export const c = require('../right/c') as typeof import('../right/c');",
        '',
      ].join('\n'),
    });
    expect(checkLayers(root, levels).upward).toEqual([
      'lib/left/d.ts:1 imports lib/right/c.ts: left imports right, beside it',
      'lib/left/d.ts:2 imports lib/right/c.ts: left imports right, beside it',
      'lib/left/d.ts:2 imports lib/right/c.ts (type-only): left imports right, beside it',
    ]);
  });

  it('names a cycle inside one layer, type-only imports included', () => {
    write({
      'lib/base/a.ts': "import type { e } from './e';\nexport const a: typeof e = 1;\n",
      'lib/base/e.ts': "import { a } from './a';\nexport const e = a;\n",
    });
    expect(checkLayers(root, levels).cycles).toEqual([
      'cycle: lib/base/a.ts:1 imports lib/base/e.ts (type-only); lib/base/e.ts:1 imports lib/base/a.ts',
    ]);
  });

  it('names the shortest cycle of files tied by several', () => {
    write({
      'lib/base/a.ts': "import { e } from './e';\nexport const a = e;\n",
      'lib/base/e.ts': "import { g } from './g';\nexport const e = g;\n",
      'lib/base/g.ts':
        "import { a } from './a';\nimport { e } from './e';\nexport const g = [a, e];\n",
    });
    expect(checkLayers(root, levels).cycles).toEqual([
      'cycle: lib/base/e.ts:1 imports lib/base/g.ts; lib/base/g.ts:2 imports lib/base/e.ts (the shortest of the cycles among 3 files)',
    ]);
  });

  it('names a file no layer holds', () => {
    write({ 'lib/stray/f.ts': 'export const f = 1;\n' });
    expect(checkLayers(root, levels).unplaced).toEqual(['lib/stray/f.ts is in no layer']);
  });
});
