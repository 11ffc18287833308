import {
  Logger,
  Module,
  type DynamicModule,
  type INestApplicationContext,
  type LogLevel,
  type Type,
} from '@nestjs/common';
import { CommandFactory, CommandRunnerService } from 'nest-commander';

import { StoreCorruptError } from '../core/errors/store-corrupt.error';
import { THREADMILL_CLI_CONTEXT } from '../core/threadmill.constants';
import { ThreadmillError } from '../core/errors/threadmill.error';
import { ExitCode } from '../core/exit-code';
import { usageLine } from './command.messages';
import { CliBackendsModule } from './cli-backends.module';
import { VERBOSE_FLAG, readInvocation, type CliInvocation } from './cli-invocation';
import { CliLogger } from './cli.logger';

/** Options of `runThreadmillCli`. */
export interface ThreadmillCliOptions {
  /**
   * Nest's log levels while the command runs, all written to stderr. Default:
   * fatal, error, warn and log. Of the boot, only warnings and errors print,
   * unless the command line has `--verbose`.
   */
  logLevels?: LogLevel[];
  /** The program name in help and usage lines. Default: `threadmill`. */
  cliName?: string;
}

const DEFAULT_LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log'];

const VERBOSE_DESCRIPTION =
  "Also print Nest's start-up lines (modules initialized, tasks discovered) on stderr.";

/** The levels of a boot without --verbose: what went wrong, never what started. */
const BOOT_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn'];

/** What is used of a commander command: its subcommands and its exit hook. */
interface CommanderCommand {
  readonly commands: readonly CommanderCommand[];
  exitOverride(): unknown;
  name(name: string): unknown;
  option(flags: string, description: string): unknown;
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
 * Only the commands that run or enqueue tasks (`worker`, `enqueue`,
 * `schedules add` and `schedules run`) boot the whole of `rootModule`. The
 * others, and `--help`, boot its ThreadmillModule alone (with the imports of
 * forRootAsync), so your providers are not constructed for them.
 *
 * Exit codes follow one table (`ExitCode`): 0 success, 1 a command that ran
 * and failed, 2 a usage error (unknown command or option, missing or invalid
 * argument), 6 a damaged store (at bootstrap too). Logs go to stderr, so a
 * command's stdout is only its result; Nest's start-up lines print only with
 * `--verbose`.
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
  const invocation = readInvocation(process.argv);
  // Nest's start-up lines are logs of the boot: printed with --verbose, else only its warnings and errors.
  const bootLevels = invocation.verbose
    ? logLevels
    : logLevels.filter((level) => BOOT_LEVELS.includes(level));
  // The levels Logger.isLevelEnabled answers from, during the boot.
  Logger.overrideLogger(bootLevels);
  const cliName = options.cliName ?? 'threadmill';
  const logger = new CliLogger({ logLevels: bootLevels });
  const app = await boot(rootModule, invocation, { cliName, logger }).catch((error: unknown) => {
    // Nest has logged the error. Exit as Nest would, at once: a failed bootstrap may have left
    // connections open that would keep the process alive.
    process.exit(failureCode(error));
  });
  // The command's levels, from now on (the worker asks once whether to log each task).
  Logger.overrideLogger(logLevels);
  try {
    // nest-commander keeps the root command private to its runner.
    const runner = app.get(CommandRunnerService);
    const root = (runner as unknown as { commander?: CommanderCommand }).commander;
    if (root) {
      // Commander would name the program after the entry file (`worker` for worker.js).
      root.name(cliName);
      // Read (and taken off the line) before commander parses; declared for --help.
      root.option(VERBOSE_FLAG, VERBOSE_DESCRIPTION);
      throwOnExit(root);
    }
    await runner.run(invocation.argv);
  } finally {
    await app.close();
  }
}

/** What is given to every boot the CLI tries. */
interface BootOptions {
  readonly cliName: string;
  readonly logger: CliLogger;
}

const createApp = (
  module: Type<unknown> | DynamicModule,
  { cliName, logger }: BootOptions,
): Promise<INestApplicationContext> =>
  CommandFactory.createWithoutRunning(asCliRoot(module), {
    cliName,
    logger,
    serviceErrorHandler: reportCommandError,
    // Nest would exit 1 for any bootstrap failure; a damaged store has a code of its own.
    abortOnError: false,
  });

/**
 * Boots what the command needs: the whole app for a command that runs or
 * enqueues tasks, else only the app's Threadmill configuration (see
 * CliBackendsModule), and the whole app when that cannot boot alone (a
 * forRootAsync factory that injects something of the app's).
 */
async function boot(
  rootModule: Type<unknown> | DynamicModule,
  invocation: CliInvocation,
  options: BootOptions,
): Promise<INestApplicationContext> {
  const backendsOnly = invocation.runsTasks ? undefined : CliBackendsModule.from(rootModule);
  if (!backendsOnly) return createApp(rootModule, options);
  options.logger.hold();
  try {
    const app = await createApp(backendsOnly, options);
    options.logger.release();
    return app;
  } catch (error) {
    if (!isMissingDependency(error)) {
      options.logger.release();
      throw error;
    }
    options.logger.drop();
    return createApp(rootModule, options);
  }
}

/**
 * Nest's error for a provider whose dependency no module of the boot
 * provides (its class is not exported, and its `name` is Error's).
 */
const isMissingDependency = (error: unknown): boolean =>
  error instanceof Error && error.constructor.name === 'UnknownDependenciesException';

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
