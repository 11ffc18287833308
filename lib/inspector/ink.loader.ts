import type * as InkModule from 'ink' with { 'resolution-mode': 'import' };
import type * as ReactModule from 'react';

import { OptionalDependencyMissingError } from '../core/errors/optional-dependency-missing.error';
import { optionalDependencyMissing } from '../core/threadmill.messages';
import { importEsm } from '../utils/import-esm.util';

/**
 * Loads Ink and React, the inspector's optional peer dependencies, only when
 * the inspector runs, so the rest of the library never requires them. Ink 6
 * is ESM-only (and awaits at top level), so this CommonJS build imports it
 * through importEsm.
 *
 * @internal
 */

export interface InkRuntime {
  readonly ink: typeof InkModule;
  readonly react: typeof ReactModule;
}

const INSPECTOR_PEERS = 'ink@6 react@19';

const isModuleNotFound = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === 'ERR_MODULE_NOT_FOUND' ||
    code === 'MODULE_NOT_FOUND' ||
    (error instanceof Error && /Cannot find (module|package)/.test(error.message))
  );
};

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
