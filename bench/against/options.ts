/** What `npm run bench -- --against <ref> ...` asks for. */
export interface AgainstOptions {
  /** The git ref to build and compare with, as given (HEAD~3, main, a tag, a commit). */
  ref: string;
  /** Rounds per figure; each round measures both builds once. */
  rounds: number;
  quick: boolean;
  /** The pool figure (each build's sample CLI); `--no-pool` leaves it out. */
  pool: boolean;
}

/** A command line the A/B mode cannot run; the message says what to change. */
export class UsageError extends Error {}

/** With fewer than 2 rounds there is no spread, and a ratio without one cannot judge anything. */
export const MIN_ROUNDS = 2;
/** Beyond this a full A/B run takes most of an hour on 2 cores. */
export const MAX_ROUNDS = 20;
export const DEFAULT_ROUNDS = { full: 5, quick: 3 } as const;

const VALUE_FLAGS = new Set(['--against', '--rounds']);
const SWITCHES = new Set(['--quick', '--no-pool']);
const ALLOWED = '--against <ref>, --rounds <N>, --quick, --no-pool';

/**
 * Parses the A/B mode's arguments. The other modes' options (`--only`,
 * `--pool-only`, `--out`, `--from-json`) are refused rather than ignored: an
 * A/B run measures Threadmill alone and writes only its own *.tmp.json, so
 * each of them would mean something this mode does not do.
 */
export function parseAgainstArgs(argv: readonly string[]): AgainstOptions {
  const values = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (VALUE_FLAGS.has(flag)) {
      const value = flag === arg ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined || value === '' || value.startsWith('-')) {
        throw new UsageError(`${flag} needs a value`);
      }
      if (values.has(flag)) throw new UsageError(`${flag} given twice`);
      values.set(flag, value);
    } else if (SWITCHES.has(arg)) {
      switches.add(arg);
    } else if (arg.startsWith('-')) {
      throw new UsageError(`${flag} is not an option of the A/B mode; it takes ${ALLOWED}`);
    } else {
      throw new UsageError(`unexpected argument ${arg}; the A/B mode takes ${ALLOWED}`);
    }
  }
  const ref = values.get('--against');
  if (ref === undefined) throw new UsageError('--against needs a value');
  const quick = switches.has('--quick');
  return {
    ref,
    rounds: parseRounds(values.get('--rounds'), quick),
    quick,
    pool: !switches.has('--no-pool'),
  };
}

function parseRounds(text: string | undefined, quick: boolean): number {
  if (text === undefined) return quick ? DEFAULT_ROUNDS.quick : DEFAULT_ROUNDS.full;
  const rounds = Number(text);
  if (!/^\d+$/.test(text) || rounds < MIN_ROUNDS || rounds > MAX_ROUNDS) {
    throw new UsageError(
      `--rounds takes a whole number from ${MIN_ROUNDS} to ${MAX_ROUNDS}, not ${text}`,
    );
  }
  return rounds;
}
