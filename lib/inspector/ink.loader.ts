import type * as InkModule from 'ink' with { 'resolution-mode': 'import' };
import type * as ReactModule from 'react';

import { OptionalDependencyMissingError } from '../core/errors/optional-dependency-missing.error';
import { optionalDependencyMissing } from '../core/threadmill.messages';

/**
 * Loads Ink and React, the inspector's optional peer dependencies, only when
 * the inspector runs, so the rest of the library never requires them.
 *
 * Ink 6 is ESM-only (and awaits at top level), so this CommonJS build cannot
 * `require()` it. A plain `import()` in this file would not help either:
 * with `module: commonjs` TypeScript (and ts-jest) rewrite it to `require()`.
 * A function built from source text is never rewritten, so its `import()` is
 * the runtime's own: Node's ESM loader from dist/, and Jest's ESM loader
 * under `--experimental-vm-modules` in the tests. This keeps one loading path
 * for the built package and the tests, with no extra asset to ship (a .mjs
 * loader would need the same dynamic import from here to be reached).
 *
 * @internal
 */

export interface InkRuntime {
  readonly ink: typeof InkModule;
  readonly react: typeof ReactModule;
}

// The comment makes the source text unique to this evaluation of the module.
// V8 caches functions compiled from equal source text across contexts, and a
// cached function keeps the import() host of the context that first compiled
// it: under Jest, whose every test file is a new context, a later file would
// import through an earlier file's torn-down runtime. Node loads this module
// once, so there it costs one tiny compile.
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the point: TypeScript must not rewrite this import() (see above)
const nativeImport = new Function('specifier', `return import(specifier); // ${Math.random()}`) as (
  specifier: string,
) => Promise<unknown>;

const INSPECTOR_PEERS = 'ink@6 react@19';

const isModuleNotFound = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === 'ERR_MODULE_NOT_FOUND' ||
    code === 'MODULE_NOT_FOUND' ||
    (error instanceof Error && /Cannot find (module|package)/.test(error.message))
  );
};

/**
 * Imports an ES module by its specifier through the runtime's own loader.
 * Exported for the component tests, which load ink-testing-library (ESM too)
 * the same way the inspector loads Ink.
 */
export function importEsm<T>(specifier: string): Promise<T> {
  return nativeImport(specifier) as Promise<T>;
}

/** Where Ink and React are imported from; a test names a package that is not installed. */
export interface InkSpecifiers {
  readonly ink: string;
  readonly react: string;
}

const INK_SPECIFIERS: InkSpecifiers = { ink: 'ink', react: 'react' };

/**
 * Ink and React, loaded once per call.
 *
 * @throws OptionalDependencyMissingError when ink or react is not installed.
 */
export async function loadInkRuntime(
  specifiers: InkSpecifiers = INK_SPECIFIERS,
): Promise<InkRuntime> {
  // Ink reads CI / CONTINUOUS_INTEGRATION once, as its module loads, and in
  // "CI mode" draws only the last frame, when the app exits. The inspector
  // runs only on an interactive terminal (the command refuses anything else),
  // so a CI variable inherited by that terminal must not blank the screen.
  const ciVariables = hideEnv(['CI', 'CONTINUOUS_INTEGRATION']);
  try {
    const [ink, react] = await Promise.all([
      importEsm<typeof InkModule>(specifiers.ink),
      importEsm<typeof ReactModule & { default?: typeof ReactModule }>(specifiers.react),
    ]);
    // React is CommonJS: through import() its exports may sit on `default` only.
    return { ink, react: react.default ?? react };
  } catch (error) {
    if (isModuleNotFound(error)) {
      throw new OptionalDependencyMissingError(
        optionalDependencyMissing('The inspector', INSPECTOR_PEERS),
        { cause: error },
      );
    }
    throw error;
  } finally {
    ciVariables.restore();
  }
}

/** Removes variables from the environment until `restore()` puts them back as they were. */
function hideEnv(names: readonly string[]): { restore(): void } {
  const saved = names.map((name) => [name, process.env[name]] as const);
  for (const name of names) delete process.env[name];
  return {
    restore() {
      for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
    },
  };
}
