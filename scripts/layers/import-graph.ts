import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import * as ts from 'typescript';

/** One import of a file of the graph by another, both as repo-relative paths with `/`. */
export interface ImportEdge {
  from: string;
  to: string;
  /** The line of the import in `from`, 1-based. */
  line: number;
  /** `import type`, `export type`, `typeof import()`: erased from the JavaScript. */
  typeOnly: boolean;
}

const SOURCE = /\.tsx?$/;

/** Every .ts and .tsx file under `dir`, declaration files left out. */
function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

interface Specifier {
  text: string;
  node: ts.Node;
  typeOnly: boolean;
}

/** Whether every name an import or export declaration brings in is type-only. */
function declarationIsTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const clause = node.exportClause;
    return (
      !!clause &&
      ts.isNamedExports(clause) &&
      clause.elements.length > 0 &&
      clause.elements.every((element) => element.isTypeOnly)
    );
  }
  const clause = node.importClause;
  if (!clause) return false; // a side-effect import runs the module
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    !clause.name &&
    !!bindings &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/**
 * Every module specifier a file names: static imports and re-exports (type-only ones too),
 * `import x = require()`, `import()`, `require()` and `typeof import()`.
 */
function specifiers(file: ts.SourceFile): Specifier[] {
  const found: Specifier[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({
        text: node.moduleSpecifier.text,
        node,
        typeOnly: declarationIsTypeOnly(node),
      });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      found.push({
        text: node.moduleReference.expression.text,
        node,
        typeOnly: node.isTypeOnly,
      });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ text: node.argument.literal.text, node, typeOnly: true });
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments.length === 1 &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ text: node.arguments[0].text, node, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * The imports between the source files under `root`/`dir`, resolved as the compiler resolves
 * them with the repo's tsconfig.json. Files are only parsed, never type-checked, so the
 * whole of lib/ takes about a second.
 */
export function importGraph(root: string, dir: string): { files: string[]; edges: ImportEdge[] } {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!config) throw new Error(`cannot read ${join(root, 'tsconfig.json')}`);
  const options = config.options;
  const cache = ts.createModuleResolutionCache(root, (name) => name, options);
  const toRepoPath = (path: string): string => relative(root, path).split(sep).join('/');

  const absolute = sourceFiles(join(root, dir));
  const files = absolute.map(toRepoPath);
  const inGraph = new Set(files);
  const edges: ImportEdge[] = [];
  for (const path of absolute) {
    const from = toRepoPath(path);
    const text = readFileSync(path, 'utf8');
    const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
    for (const specifier of specifiers(file)) {
      if (!specifier.text.startsWith('.')) continue; // a package, never a file of the graph
      const resolved = ts.resolveModuleName(specifier.text, path, options, ts.sys, cache)
        .resolvedModule?.resolvedFileName;
      if (!resolved) throw new Error(`${from}: cannot resolve '${specifier.text}'`);
      const to = toRepoPath(resolved);
      if (!inGraph.has(to)) continue;
      const { line } = file.getLineAndCharacterOfPosition(specifier.node.getStart(file));
      edges.push({ from, to, line: line + 1, typeOnly: specifier.typeOnly });
    }
  }
  return { files: files.sort(), edges };
}
