'use strict';
// Lets a child process require the TypeScript sources directly, as jest's
// transform does for the test process: `node -r ./transpile-register.js x.ts`.
// Transpile only (the type check is `npm run typecheck`), so a multi-process
// test needs no build step and always runs the code under test, never a stale dist.
const { readFileSync } = require('node:fs');
const ts = require('typescript');

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  inlineSourceMap: true,
};

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions,
  });
  module._compile(outputText, filename);
};
