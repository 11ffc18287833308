import { Command } from 'nest-commander';

import { BackendRegistry } from '../backends/backend.registry';
import {
  AliasFlag,
  parseAliasFlag,
  aliasFlag,
  type AliasFlags,
  AliasedCommand,
} from './alias-flag';
import { CommandOutputWriter } from './command-output.writer';
import { migrateTakesNoArgument, nothingToMigrate, storeMigrated } from './command.messages';

/** The `migrate` options as commander hands them over. */
export type MigrateCommandOptions = AliasFlags;

/**
 * `threadmill migrate [--alias <alias>]`: brings each backend's store to
 * the schema this release uses and exits, for a deploy that migrates before
 * it starts the apps. A store without a schema (memory, Redis) is said to
 * have nothing to migrate.
 *
 * @internal
 */
@Command({
  name: 'migrate',
  description:
    'Bring the store of every backend (or of --alias) to the schema this release uses, and exit.',
})
export class MigrateCommand extends AliasedCommand {
  constructor(
    private readonly backends: BackendRegistry,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run(params: string[], options: MigrateCommandOptions = {}): Promise<void> {
    if (params.length > 0) return this.output.usageError(migrateTakesNoArgument(params[0]));
    try {
      const alias = aliasFlag(options);
      const chosen = alias === undefined ? this.backends.all() : [this.backends.get(alias)];
      // One at a time, so the lines come in the order of the configuration.
      for (const backend of chosen) {
        if (backend.migrate === undefined) {
          this.output.line(nothingToMigrate(backend.alias, backend.constructor.name));
        } else {
          this.output.line(storeMigrated(backend.alias, await backend.migrate()));
        }
      }
    } catch (error) {
      return this.output.refused(error);
    }
  }

  @AliasFlag('whose store is migrated', 'every configured backend')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }
}
