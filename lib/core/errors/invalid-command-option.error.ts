import { ThreadmillError } from './threadmill.error';

/**
 * A command-line option has a value the command cannot use; the message names
 * the flag and the value. Thrown by the commands' option parsers.
 *
 * Its `code` is commander's own `commander.invalidArgument`: commander
 * recognises a parser's usage error by that code, prints
 * `error: option '--x <n>' argument 'y' is invalid. <message>` and exits with
 * `exitCode`, which is 2 here (commander would say 1 for any error).
 *
 * @publicApi
 */
export class InvalidCommandOptionError extends ThreadmillError {
  readonly code = 'commander.invalidArgument';
  readonly exitCode = 2;
}
