import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

import * as ts from 'typescript';

import {
  PACKAGE_ENTRY_POINTS,
  REPO,
  blockPath,
  typeScriptBlocks,
  type CodeBlock,
} from './doc-pages';

// Every ```ts block of README.md and docs/ is written as a module of its own
// (in a folder per page, at the path its first line names, if any) and all
// are type-checked in one program, with the repository's strict options and
// the package's entry points mapped to lib/. A block that does not compile,
// or needs something it does not import, fails here.

/** The repository's compiler options, for modules outside it that import the package by name. */
function compilerOptions(): ts.CompilerOptions {
  const { config } = ts.readConfigFile(join(REPO, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, REPO);
  return {
    ...options,
    noEmit: true,
    declaration: false,
    sourceMap: false,
    incremental: false,
    rootDir: undefined,
    outDir: undefined,
    baseUrl: REPO,
    paths: Object.fromEntries(
      Object.entries(PACKAGE_ENTRY_POINTS).map(([name, source]) => [name, [source]]),
    ),
  };
}

/** Where a diagnostic is, as `page:line`, for the block written at `file`. */
function locate(diagnostic: ts.Diagnostic, blocks: ReadonlyMap<string, CodeBlock>): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  const file = diagnostic.file;
  if (!file || diagnostic.start === undefined) return message;
  const block = blocks.get(file.fileName);
  const { line } = file.getLineAndCharacterOfPosition(diagnostic.start);
  if (!block) return `${relative(REPO, file.fileName)}:${line + 1}: ${message}`;
  return `${block.page}:${block.line + line}: ${message}`;
}

describe('the TypeScript examples of README.md and docs/', () => {
  let folder: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'threadmill-docs-'));
    // Packages resolve from the examples' folder as from an app's.
    symlinkSync(join(REPO, 'node_modules'), join(folder, 'node_modules'), 'dir');
  });

  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('name each file at most once per page', () => {
    const paths = typeScriptBlocks().map(blockPath);
    expect(paths.filter((path, index) => paths.indexOf(path) !== index)).toEqual([]);
  });

  it('compile, each as a module, against the package built from lib/', () => {
    const blocks = new Map<string, CodeBlock>();
    for (const block of typeScriptBlocks()) {
      const file = join(folder, blockPath(block));
      mkdirSync(dirname(file), { recursive: true });
      // A block with no import or export would be a script sharing one global scope with the others.
      writeFileSync(
        file,
        `${block.code}\n${/^(import|export) /m.test(block.code) ? '' : 'export {};\n'}`,
      );
      blocks.set(file, block);
    }
    expect(blocks.size).toBeGreaterThan(0);

    const program = ts.createProgram([...blocks.keys()], compilerOptions());
    const diagnostics = [
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...[...blocks.keys()].flatMap((file) => {
        const source = program.getSourceFile(file);
        return source
          ? [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]
          : [];
      }),
    ];
    expect(diagnostics.map((diagnostic) => locate(diagnostic, blocks))).toEqual([]);
  }, 120_000);
});
