'use strict';
// Lets a child process require the TypeScript sources directly, as jest's
// transform does for the test process: `node -r ./transpile-register.js x.ts`.
// Transpile only (the type check is `npm run typecheck`), so a multi-process
// test needs no build step and always runs the code under test, never a stale dist.
//
// Every forked worker child loads all of lib/ this way, and transpiling it
// costs seconds of CPU per process; so each output is kept on disk, keyed by
// the file's path and text and the compiler's version and options, and
// TypeScript itself is loaded only when a file is not in the cache yet.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const CACHE_DIR = join(__dirname, '..', '..', 'node_modules', '.cache', 'threadmill-transpile');

const compilerOptions = {
  module: 'commonjs',
  target: 'es2022',
  esModuleInterop: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  inlineSourceMap: true,
};

let typescript;
let typescriptOptions;
let typescriptVersion;

/** TypeScript's version, read from its package.json, which is far cheaper than loading the compiler. */
function compilerVersion() {
  typescriptVersion ??= JSON.parse(
    readFileSync(require.resolve('typescript/package.json'), 'utf8'),
  ).version;
  return typescriptVersion;
}

function transpile(source, filename) {
  typescript ??= require('typescript');
  typescriptOptions ??= typescript.convertCompilerOptionsFromJson(compilerOptions, '.').options;
  return typescript.transpileModule(source, {
    fileName: filename,
    compilerOptions: typescriptOptions,
  }).outputText;
}

require.extensions['.ts'] = (module, filename) => {
  const source = readFileSync(filename, 'utf8');
  const key = createHash('sha256')
    .update(`${compilerVersion()}\0${JSON.stringify(compilerOptions)}\0${filename}\0${source}`)
    .digest('hex');
  const cached = join(CACHE_DIR, `${key}.js`);
  let output;
  try {
    output = readFileSync(cached, 'utf8');
  } catch {
    output = transpile(source, filename);
    // Written aside and renamed: processes starting at once never read half a file.
    mkdirSync(CACHE_DIR, { recursive: true });
    const partial = `${cached}.${process.pid}.tmp`;
    writeFileSync(partial, output);
    renameSync(partial, cached);
  }
  module._compile(output, filename);
};
