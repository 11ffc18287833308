/**
 * Imports a module through the runtime's own loader, so this CommonJS build
 * can load ES modules (Ink, or an app's ESM worker entry).
 *
 * A plain `import()` would not do: with `module: commonjs` TypeScript (and
 * ts-jest) rewrite it to `require()`. A function built from source text is
 * never rewritten, so its `import()` is the runtime's own: Node's ESM loader
 * from dist/, and Jest's ESM loader under `--experimental-vm-modules` in the
 * tests.
 *
 * The comment makes the source text unique to this evaluation of the module.
 * V8 caches functions compiled from equal source text across contexts, and a
 * cached function keeps the import() host of the context that first compiled
 * it: under Jest, whose every test file is a new context, a later file would
 * import through an earlier file's torn-down runtime. Node loads this module
 * once, so there it costs one tiny compile.
 */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the point: TypeScript must not rewrite this import()
const nativeImport = new Function('specifier', `return import(specifier); // ${Math.random()}`) as (
  specifier: string,
) => Promise<unknown>;

/** Imports a module by specifier or file URL with the runtime's own `import()`. @internal */
export function importEsm<T>(specifier: string): Promise<T> {
  return nativeImport(specifier) as Promise<T>;
}
