/**
 * What the command line says of a command used wrongly, written once for
 * every command (as threadmill.messages.ts).
 */
import { shown, shownList } from '../core/shown';

export const unknownSubcommand = (
  command: string,
  name: string,
  subcommands: readonly string[],
): string =>
  `${command}: unknown subcommand ${shown(name)} (subcommands: ${shownList(subcommands)}).`;
