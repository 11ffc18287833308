import { CommandRunner, Option } from 'nest-commander';

import { InvalidCommandOptionError } from '../core/errors/invalid-command-option.error';
import { aliasFlagsDisagree, backendFlagDeprecated } from './command.messages';
import { parseName } from './parse-option.util';

/** What a command without `--alias` uses: the registry's default alias. */
const ONLY_OR_DEFAULT = 'the only one configured, else "default"';

/** The backend flags of a command as commander hands them over. */
export interface AliasFlags {
  alias?: string;
  /** `--backend`, the deprecated name of `--alias`. */
  backend?: string;
}

/**
 * The `--alias <alias>` option of a command: `purpose` completes "Backend
 * alias …" (empty for none), `otherwise` is what the command uses without it.
 */
export const AliasFlag = (purpose: string, otherwise = ONLY_OR_DEFAULT): MethodDecorator =>
  Option({
    flags: '--alias <alias>',
    description: `Backend alias${purpose && ` ${purpose}`}. Default: ${otherwise}.`,
  });

/** The value of `--alias`, checked as a name. */
export const parseAliasFlag = (value: string): string => parseName('--alias', value);

/**
 * The alias a command line names: `--alias`, or `--backend`, its deprecated name.
 *
 * @throws InvalidCommandOptionError when both are given, naming different backends.
 */
export function aliasFlag(options: AliasFlags): string | undefined {
  const { alias, backend } = options;
  if (alias !== undefined && backend !== undefined && alias !== backend) {
    throw new InvalidCommandOptionError(aliasFlagsDisagree(alias, backend));
  }
  return alias ?? backend;
}

/**
 * A command that names a backend: it declares `--alias` itself (with what
 * the alias is for) and inherits `--backend`, the flag's name before 0.4.0,
 * read with a deprecation warning until 0.5.0.
 */
export abstract class AliasedCommand extends CommandRunner {
  @Option({ flags: '--backend <alias>', description: 'Deprecated name of --alias.' })
  parseBackend(value: string): string {
    process.emitWarning(backendFlagDeprecated(), {
      type: 'DeprecationWarning',
      code: 'THREADMILL_BACKEND_FLAG',
    });
    return parseName('--backend', value);
  }
}
