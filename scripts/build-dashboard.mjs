// Builds the dashboard's page from lib/dashboard/ui: index.html, app.js (the
// views and Preact, bundled and minified by esbuild) and app.css, written into
// each folder given. Without one it writes lib/dashboard/assets, where the
// dashboard module finds its page when run from source (that folder is not
// committed: `npm run build`, `npm run build:sample` and the test setup write it).
//
//   node scripts/build-dashboard.mjs [--sizes] [outDir ...]
//
// --sizes prints each file's size and the gzipped size of app.js + app.css.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const UI = join(ROOT, 'lib', 'dashboard', 'ui');

const args = process.argv.slice(2);
const sizes = args.includes('--sizes');
const outDirs = args.filter((arg) => arg !== '--sizes').map((dir) => resolve(dir));
if (outDirs.length === 0) outDirs.push(join(ROOT, 'lib', 'dashboard', 'assets'));

const shared = {
  bundle: true,
  minify: true,
  write: false,
  legalComments: 'none',
  logLevel: 'warning',
  target: ['es2020'],
};

const [script, style] = await Promise.all([
  build({
    ...shared,
    entryPoints: [join(UI, 'main.tsx')],
    outfile: 'app.js',
    format: 'iife',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(UI, 'tsconfig.json'),
    define: { 'process.env.NODE_ENV': '"production"' },
  }),
  build({ ...shared, entryPoints: [join(UI, 'app.css')], outfile: 'app.css' }),
]);

const files = {
  'index.html': readFileSync(join(UI, 'index.html')),
  'app.js': script.outputFiles[0].contents,
  'app.css': style.outputFiles[0].contents,
};

for (const dir of outDirs) {
  mkdirSync(dir, { recursive: true });
  for (const [name, contents] of Object.entries(files)) writeFileSync(join(dir, name), contents);
}

if (sizes) {
  for (const [name, contents] of Object.entries(files)) {
    process.stdout.write(`${name}: ${contents.length} bytes\n`);
  }
  const gzipped =
    gzipSync(files['app.js'], { level: 9 }).length +
    gzipSync(files['app.css'], { level: 9 }).length;
  process.stdout.write(`app.js + app.css gzipped: ${gzipped} bytes\n`);
}
