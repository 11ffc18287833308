/**
 * What the command line says of a command used wrongly, written once for
 * every command (as threadmill.messages.ts).
 */
import { shown, shownList } from '../core/shown';
import type { StoreMigration } from '../core/store-migration';

export const unknownSubcommand = (
  command: string,
  name: string,
  subcommands: readonly string[],
): string =>
  `${command}: unknown subcommand ${shown(name)} (subcommands: ${shownList(subcommands)}).`;

/** Commander prefixes it with the flag and the value: `option '--x <n>' argument 'y' is invalid.` */
export const invalidOptionValue = (flag: string, expected: string): string =>
  `${flag} expects ${expected}.`;

export const workerQueueNotConfigured = (
  queue: string,
  alias: string,
  queues: readonly string[],
): string =>
  `--queues: queue ${shown(queue)} is not configured for backend ${shown(alias)} (configured: ${shownList(queues)}).`;

export const workerBackendNotConfigured = (alias: string, aliases: readonly string[]): string =>
  `--alias: no backend ${shown(alias)} is configured (configured: ${shownList(aliases)}).`;

export const workerBackendNotShared = (alias: string, backendClass: string): string =>
  `--alias: backend ${shown(alias)} (${backendClass}) keeps its tasks inside one process, so the ` +
  `worker pool's children, which are processes of their own, cannot see them. Serve a pool ` +
  `from a RedisBackend, a PostgresBackend or a SqliteBackend; run tasks on a MemoryBackend in process (TaskRunner).`;

export const waitNeedsOneTask = (count: number): string =>
  `--wait waits for one task, but --count asks for ${count}: enqueue them without --wait and ` +
  `read each with "threadmill result <id>".`;

export const timeoutNeedsWait = (): string =>
  `--timeout bounds --wait: add --wait, or drop --timeout.`;

export const unknownCommand = (name: string, commands: readonly string[]): string =>
  `unknown command ${shown(name)} (commands: ${shownList(commands)}).`;

export const usageLine = (message: string): string => `error: ${message}\n`;

/** `--alias` and its deprecated name `--backend` name different backends. */
export const aliasFlagsDisagree = (alias: string, backend: string): string =>
  `--alias ${shown(alias)} and --backend ${shown(backend)} name different backends: ` +
  '--backend is the old name of --alias; give --alias alone.';

/** `--backend` was given where the flag is now `--alias`. */
export const backendFlagDeprecated = (): string =>
  '--backend is now --alias (same value); --backend is read until 0.5.0.';

/** `migrate` was given an argument: it takes none. */
export const migrateTakesNoArgument = (word: string): string =>
  `migrate: unexpected argument ${shown(word)}; migrate takes none (--alias names one backend).`;

/** What `migrate` did to one backend's store. */
export const storeMigrated = (alias: string, migration: StoreMigration): string =>
  migration.from === migration.to
    ? `Backend ${shown(alias)}: ${migration.where} is at version ${migration.to}; nothing to migrate.`
    : `Backend ${shown(alias)}: ${migration.where} migrated from version ${migration.from} to ${migration.to}.`;

/** A backend whose store keeps no schema (memory, Redis). */
export const nothingToMigrate = (alias: string, backendClass: string): string =>
  `Backend ${shown(alias)} (${backendClass}) keeps no schema; nothing to migrate.`;
