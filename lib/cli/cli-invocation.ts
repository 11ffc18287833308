/** The flag that shows Nest's start-up lines; read before commander, anywhere on the line. */
export const VERBOSE_FLAG = '--verbose';

/**
 * The commands that run or enqueue the app's tasks by name, so they need the
 * app's providers: `true` for the command, or the subcommands that do.
 * Everything else (and `--help`) reads or changes the store only.
 */
const TASK_COMMANDS: Readonly<Record<string, true | readonly string[]>> = {
  worker: true,
  enqueue: true,
  schedules: ['add', 'run'],
};

const HELP_FLAGS: readonly string[] = ['-h', '--help'];

/** What a command line asks of the CLI before any module boots. */
export interface CliInvocation {
  /** `process.argv` without the verbose flag: what commander parses. */
  readonly argv: string[];
  /** Whether Nest's start-up lines are shown (`--verbose`). */
  readonly verbose: boolean;
  /** Whether the command runs or enqueues tasks, so the whole app must boot. */
  readonly runsTasks: boolean;
}

/**
 * Reads `argv` (`process.argv`: node, the entry, then the command line).
 * Without a command the default, `worker`, runs tasks; so does a line that
 * starts with an option other than help (the worker's options).
 *
 * @internal
 */
export function readInvocation(argv: readonly string[]): CliInvocation {
  const end = argv.indexOf('--');
  const line = end === -1 ? argv.slice(2) : argv.slice(2, end);
  const words = line.filter((word) => word !== VERBOSE_FLAG);
  const rest = end === -1 ? [] : argv.slice(end);
  return {
    argv: [...argv.slice(0, 2), ...words, ...rest],
    verbose: words.length < line.length,
    runsTasks: !words.some((word) => HELP_FLAGS.includes(word)) && runsTasks(words),
  };
}

function runsTasks([command, subcommand]: readonly string[]): boolean {
  if (command === undefined || command.startsWith('-')) return true;
  const tasks = TASK_COMMANDS[command];
  if (tasks === true) return true;
  return tasks !== undefined && subcommand !== undefined && tasks.includes(subcommand);
}
