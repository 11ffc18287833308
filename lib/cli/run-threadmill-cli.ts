import { Logger, Module, type DynamicModule, type LogLevel, type Type } from '@nestjs/common';
import { CommandFactory, CommandRunnerService } from 'nest-commander';

import { StoreCorruptError } from '../core/errors/store-corrupt.error';
import { THREADMILL_CLI_CONTEXT } from '../core/threadmill.constants';
import { ThreadmillError } from '../core/errors/threadmill.error';
import { usageLine } from '../core/worker.messages';
import { ExitCode } from '../command/exit-code';
import { StderrLogger } from './stderr.logger';

/** Options of `runThreadmillCli`. */
export interface ThreadmillCliOptions {
  /** Nest's log levels, all written to stderr. Default: fatal, error, warn and log. */
  logLevels?: LogLevel[];
  /** The program name in help and usage lines. Default: `threadmill`. */
  cliName?: string;
}

const DEFAULT_LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log'];

/** What is used of a commander command: its subcommands and its exit hook. */
interface CommanderCommand {
  readonly commands: readonly CommanderCommand[];
  exitOverride(): unknown;
  name(name: string): unknown;
}

/** Commander's error for a usage problem it already printed (or help it showed). */
interface CommanderExit {
  readonly name: 'CommanderError';
  readonly exitCode: number;
}

/**
 * Runs the `threadmill` commands inside your application: boots `rootModule`
 * (which imports `ThreadmillModule.forRoot({ isGlobal: true, ... })` and
 * `ThreadmillCommandsModule`), runs the command of `process.argv` and closes
 * the application. Without a command it runs `worker`.
 *
 * Exit codes follow one table (`ExitCode`): 0 success, 1 a command that ran
 * and failed, 2 a usage error (unknown command or option, missing or invalid
 * argument), 6 a damaged store (at bootstrap too). Logs go to stderr, so a
 * command's stdout is only its result.
 *
 * @example
 * ```ts
 * // src/worker.ts
 * import 'reflect-metadata';
 * import { runThreadmillCli } from '@threadmill/nestjs/cli';
 * import { WorkerModule } from './worker.module';
 *
 * void runThreadmillCli(WorkerModule);
 * ```
 * @publicApi
 */
export async function runThreadmillCli(
  rootModule: Type<unknown> | DynamicModule,
  options: ThreadmillCliOptions = {},
): Promise<void> {
  const logLevels = options.logLevels ?? DEFAULT_LOG_LEVELS;
  // The levels Logger.isLevelEnabled answers from (the worker asks once whether to log each task).
  Logger.overrideLogger(logLevels);
  const cliName = options.cliName ?? 'threadmill';
  const app = await CommandFactory.createWithoutRunning(asCliRoot(rootModule), {
    cliName,
    logger: new StderrLogger({ logLevels }),
    serviceErrorHandler: reportCommandError,
    // Nest would exit 1 for any bootstrap failure; a damaged store has a code of its own.
    abortOnError: false,
  }).catch((error: unknown) => {
    // Nest has logged the error. Exit as Nest would, at once: a failed bootstrap may have left
    // connections open that would keep the process alive.
    process.exit(failureCode(error));
  });
  try {
    // nest-commander keeps the root command private to its runner.
    const runner: unknown = app.get(CommandRunnerService);
    const root = (runner as { commander?: CommanderCommand }).commander;
    if (root) {
      // Commander would name the program after the entry file (`worker` for worker.js).
      root.name(cliName);
      throwOnExit(root);
    }
    await CommandFactory.runApplication(app);
  } finally {
    await app.close();
  }
}

/** The root of a CLI's app: `rootModule`, and the mark that a command runs in it. */
@Module({})
class ThreadmillCliRootModule {}

/**
 * `rootModule` under a global module that provides THREADMILL_CLI_CONTEXT,
 * so whatever `rootModule` turns on for a web app (the in-process worker)
 * can tell it runs inside a command instead.
 */
function asCliRoot(rootModule: Type<unknown> | DynamicModule): DynamicModule {
  return {
    module: ThreadmillCliRootModule,
    global: true,
    imports: [rootModule],
    providers: [{ provide: THREADMILL_CLI_CONTEXT, useValue: true }],
    exports: [THREADMILL_CLI_CONTEXT],
  };
}

/**
 * Commander exits the process itself, with 1 for every usage error, unless
 * a command has an exit override. With one on every command, its error
 * reaches reportCommandError, which sets the code of the table instead.
 */
function throwOnExit(command: CommanderCommand): void {
  command.exitOverride();
  for (const subcommand of command.commands) throwOnExit(subcommand);
}

function isCommanderExit(error: unknown): error is CommanderExit {
  const { name, exitCode } = (error ?? {}) as Partial<CommanderExit>;
  return name === 'CommanderError' && typeof exitCode === 'number';
}

/** The code of a command that failed with `error`: StoreCorrupt for a damaged store, else Failure. */
function failureCode(error: unknown): ExitCode {
  return error instanceof StoreCorruptError ? ExitCode.StoreCorrupt : ExitCode.Failure;
}

/**
 * The end of a command that threw: commander's usage errors exit 2, a
 * damaged store 6, anything else 1.
 */
function reportCommandError(error: Error): void {
  if (isCommanderExit(error)) {
    // Commander has printed the problem (or the help) already.
    process.exitCode = error.exitCode === 0 ? ExitCode.Success : ExitCode.Usage;
    return;
  }
  process.stderr.write(
    error instanceof ThreadmillError ? usageLine(error.message) : `${error.stack ?? error}\n`,
  );
  process.exitCode = failureCode(error);
}
