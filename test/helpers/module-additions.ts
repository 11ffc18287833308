import * as ts from 'typescript';

/**
 * Applies a docs block that adds to a module file an app already has (a
 * `// add to src/app.module.ts` block) the way its reader is told to: the
 * block's imports join the file's (names missing from an import of the same
 * module are added to it), and the entries of each array of the block's
 * `@Module({ ... })` are appended to the same array of the file's, which is
 * made when the file has none. Everything else of the file stays as it is:
 * a starter's own imports, controllers, providers and exports.
 */
export function addToModuleFile(existing: string, addition: string): string {
  const file = parse(existing);
  const block = parse(addition);
  const edits: { at: number; text: string }[] = [];

  const imports = file.statements.filter(ts.isImportDeclaration);
  const afterImports = imports.length > 0 ? imports[imports.length - 1].end : 0;
  for (const added of block.statements.filter(ts.isImportDeclaration)) {
    const from = specifier(added);
    const same = imports.find((declaration) => specifier(declaration) === from);
    const sameNames = same && namedImports(same);
    if (!same) {
      edits.push({ at: afterImports, text: `\n${added.getText(block)}` });
    } else if (sameNames) {
      const present = new Set(sameNames.elements.map((element) => element.getText(file)));
      const missing = (namedImports(added)?.elements ?? [])
        .map((element) => element.getText(block))
        .filter((name) => !present.has(name));
      if (missing.length > 0) edits.push(appendTo(sameNames.elements, missing));
    } else {
      throw new Error(`cannot add named imports to the import of ${from}: it has none`);
    }
  }

  const target = moduleMetadata(file);
  for (const property of moduleMetadata(block).properties) {
    const name = propertyName(property, block);
    const entries = arrayOf(property, block).elements.map((element) => element.getText(block));
    const existingProperty = target.properties.find((p) => propertyName(p, file) === name);
    if (existingProperty) {
      edits.push(appendTo(arrayOf(existingProperty, file).elements, entries));
    } else {
      edits.push({ at: target.properties.pos, text: `\n  ${name}: [${entries.join(', ')}],` });
    }
  }

  return edits
    .sort((a, b) => b.at - a.at)
    .reduce((text, edit) => text.slice(0, edit.at) + edit.text + text.slice(edit.at), existing);
}

function parse(text: string): ts.SourceFile {
  return ts.createSourceFile('module.ts', text, ts.ScriptTarget.Latest, true);
}

function specifier(declaration: ts.ImportDeclaration): string {
  return (declaration.moduleSpecifier as ts.StringLiteral).text;
}

function namedImports(declaration: ts.ImportDeclaration): ts.NamedImports | undefined {
  const bindings = declaration.importClause?.namedBindings;
  return bindings && ts.isNamedImports(bindings) ? bindings : undefined;
}

/** An insertion after the last element of a list (or into the empty one), keeping its trailing comma. */
function appendTo(
  list: ts.NodeArray<ts.Node>,
  entries: readonly string[],
): { at: number; text: string } {
  const text = entries.join(', ');
  if (list.length === 0) return { at: list.pos, text };
  return { at: list[list.length - 1].end, text: `, ${text}` };
}

/** The object literal of the file's one `@Module({ ... })`. */
function moduleMetadata(file: ts.SourceFile): ts.ObjectLiteralExpression {
  let found: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (
      ts.isDecorator(node) &&
      ts.isCallExpression(node.expression) &&
      node.expression.expression.getText(file) === 'Module'
    ) {
      const [argument] = node.expression.arguments;
      if (argument && ts.isObjectLiteralExpression(argument)) found = argument;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!found) throw new Error('the file has no @Module({ ... }) to add to');
  return found;
}

function propertyName(property: ts.ObjectLiteralElementLike, file: ts.SourceFile): string {
  if (!ts.isPropertyAssignment(property)) {
    throw new Error(`@Module() property ${property.getText(file)} is not name: [ ... ]`);
  }
  return property.name.getText(file);
}

function arrayOf(
  property: ts.ObjectLiteralElementLike,
  file: ts.SourceFile,
): ts.ArrayLiteralExpression {
  if (ts.isPropertyAssignment(property) && ts.isArrayLiteralExpression(property.initializer)) {
    return property.initializer;
  }
  throw new Error(`@Module() property ${property.getText(file)} is not an array to add to`);
}
