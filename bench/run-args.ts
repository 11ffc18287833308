import { join, resolve } from 'node:path';

import { FULL, QUICK, type BenchConfig } from './bench-config';
import { benchmarksPagePath } from './benchmarks-page';

export interface Args {
  config: BenchConfig;
  only: string | null;
  pool: boolean;
  inProcess: boolean;
  /** Only some figures: the run must not stand for the benchmark. */
  partial: boolean;
  out: string;
  /** Where this run's report goes besides `out`: docs/benchmarks.md for a whole full run into latest.json. */
  page: string | null;
  /** `--from-json <file>`: no run, only docs/benchmarks.md rewritten from that report. */
  fromJson: string | null;
  /** The Redis and SQLite rows (all but `--only postgres`). */
  redis: boolean;
  /** The Postgres rows (all but `--no-postgres` and `--only` another library). */
  postgres: boolean;
}

const USAGE =
  'use --quick, --only <threadmill|bullmq|bee-queue|sqlite|postgres>, --no-postgres, --pool, --no-pool, --pool-only, --out <file>, --from-json <file>, --against <ref> [--rounds N], --help';

/** `--only postgres`: the Postgres rows alone. */
export const POSTGRES_ONLY = 'postgres';

/** What `npm run bench -- --help` prints. */
export const HELP = `npm run bench [-- options]

Threadmill against BullMQ and Bee-Queue (and Threadmill on SQLite), one run on a private redis-server,
then Threadmill's Postgres backend against BullMQ (Postgres), pg-boss and graphile-worker on a private
Postgres (PG_URL to use another).
  --quick              small sizes, a run of a few minutes (the pool figures only with --pool)
  --only <name>        one library: threadmill, bullmq, bee-queue or sqlite; or postgres: the
                       Postgres rows alone
  --no-postgres        without the Postgres rows
  --pool | --no-pool   with or without the pool figures (Nest processes, seconds each)
  --pool-only          the pool figures alone
  --out <file>         where the JSON report goes
  --from-json <file>   no run: rewrite docs/benchmarks.md from a report already written
A whole full run writes bench/results/latest.json and docs/benchmarks.md; any other run
writes a *.tmp.json under bench/results and leaves both alone.

A/B: this tree against another commit, for judging a refactor.
  --against <ref>      build <ref> in a temporary git worktree and measure both builds,
                       Threadmill only, interleaved round by round on one redis-server
  --rounds <N>         rounds per figure, each running both builds (default 5, 3 with --quick)
  --quick              smaller sizes (pool drain of 10k instead of 50k)
  --no-pool            leave out the pool figure (the sample CLI of each build)
Prints each build's median and min–max per figure, the ratio current / ref of each round
(median and min–max) and a verdict with its sign-test p, and writes
bench/results/against-<commit>.tmp.json (never latest.json or docs/benchmarks.md).
  npm run bench -- --against main
  npm run bench -- --against HEAD~3 --rounds 2 --quick`;

/** Whether argv asks for the A/B mode (`--against <ref>`), parsed by bench/against/options.ts. */
export function isAgainstRun(argv: readonly string[]): boolean {
  return argv.some((arg) => arg === '--against' || arg.startsWith('--against='));
}

export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

export function parseArgs(argv: readonly string[], root: string): Args {
  const quick = argv.includes('--quick');
  const value = (flag: string): string | null => {
    const inline = argv.find((arg) => arg.startsWith(`${flag}=`));
    if (inline) return inline.slice(flag.length + 1);
    const at = argv.indexOf(flag);
    return at >= 0 && at + 1 < argv.length ? argv[at + 1] : null;
  };
  const known = new Set([
    '--quick',
    '--only',
    '--pool',
    '--no-pool',
    '--pool-only',
    '--out',
    '--from-json',
    '--no-postgres',
  ]);
  const unknown = argv.filter((arg) => arg.startsWith('--') && !known.has(arg.split('=')[0]));
  if (unknown.length) {
    console.error(`unknown option ${unknown.join(' ')}; ${USAGE}`);
    process.exit(2);
  }
  const only = value('--only')?.toLowerCase() ?? null;
  // Only a whole full run replaces latest.json and docs/benchmarks.md: a part of one,
  // or a quick one, must not stand in for the benchmark.
  const partial =
    only !== null ||
    argv.includes('--no-pool') ||
    argv.includes('--pool-only') ||
    argv.includes('--no-postgres');
  const out = resolve(
    value('--out') ??
      join(
        root,
        'bench',
        'results',
        quick ? 'latest-quick.tmp.json' : partial ? 'latest-partial.tmp.json' : 'latest.json',
      ),
  );
  const fromJson = value('--from-json');
  return {
    config: quick ? QUICK : FULL,
    only,
    // The pool figure boots Nest processes (seconds each): --quick leaves it out unless asked.
    pool:
      argv.includes('--pool-only') ||
      (!argv.includes('--no-pool') && (!quick || argv.includes('--pool'))),
    inProcess: !argv.includes('--pool-only'),
    partial,
    out,
    page: benchmarksPagePath(root, { quick, partial, out }),
    fromJson: fromJson === null ? null : resolve(fromJson),
    redis: only !== POSTGRES_ONLY,
    // --pool-only keeps to the Redis pool figures it always meant.
    postgres:
      !argv.includes('--no-postgres') &&
      !argv.includes('--pool-only') &&
      (only === null || only === POSTGRES_ONLY),
  };
}
