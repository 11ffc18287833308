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
import { OptionalDependencyMissingError } from '../core/errors/optional-dependency-missing.error';
import { DEFAULT_BACKEND_ALIAS } from '../core/threadmill.constants';
import { inspectorNeedsTerminal, unknownBackend } from '../core/threadmill.messages';

/** The `inspector` options as commander hands them over. */
export type InspectorCommandOptions = AliasFlags;

/**
 * `threadmill inspector [--alias alias]`: a live terminal UI over the
 * queues and tasks of the configured backends. It only reads.
 *
 * @internal
 */
@Command({
  name: 'inspector',
  description:
    'Watch queues and tasks live in a terminal UI (needs the optional peers ink and react).',
})
export class InspectorCommand extends AliasedCommand {
  constructor(
    private readonly backends: BackendRegistry,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run(_params: string[], options: InspectorCommandOptions = {}): Promise<void> {
    const { aliases } = this.backends;
    // Without --alias: "default" when configured, else the first alias; the
    // selector in the UI reaches the others either way.
    let alias: string | undefined;
    try {
      alias =
        aliasFlag(options) ??
        (aliases.includes(DEFAULT_BACKEND_ALIAS) ? DEFAULT_BACKEND_ALIAS : aliases[0]);
    } catch (error) {
      return this.output.refused(error);
    }
    if (alias === undefined || !aliases.includes(alias)) {
      return this.output.usageError(unknownBackend(alias ?? DEFAULT_BACKEND_ALIAS, aliases));
    }
    // Ink would fail deep inside React with a stack trace; say it plainly instead.
    if (!process.stdin.isTTY) return this.output.usageError(inspectorNeedsTerminal());
    try {
      // Loaded here, not with the commands: every other command's start would pay for it.
      const { InspectorApp } = await import('../inspector/inspector.app');
      await new InspectorApp({ backends: this.backends.all(), initialAlias: alias }).run();
    } catch (error) {
      if (error instanceof OptionalDependencyMissingError) {
        return this.output.failure(error.message);
      }
      throw error;
    }
  }

  @AliasFlag('to show first', '"default", or the first configured')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }
}
