import { Option } from 'nest-commander';

import { parseName } from './parse-option.util';

/** What a command without `--backend` uses: the registry's default alias. */
const ONLY_OR_DEFAULT = 'the only one configured, else "default"';

/**
 * The `--backend <alias>` option of a command: `purpose` completes "Backend
 * alias …" (empty for none), `otherwise` is what the command uses without it.
 */
export const BackendOption = (purpose: string, otherwise = ONLY_OR_DEFAULT): MethodDecorator =>
  Option({
    flags: '--backend <alias>',
    description: `Backend alias${purpose && ` ${purpose}`}. Default: ${otherwise}.`,
  });

/** The value of `--backend`, checked as a name. */
export const parseBackendOption = (value: string): string => parseName('--backend', value);
