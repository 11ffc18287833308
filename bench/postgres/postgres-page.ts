import { bullet, paragraph } from '../markdown-prose';
import { countLabel, formatNumber } from '../report';
import type { PostgresBenchConfig } from './postgres-bench-config';
import {
  DRAIN_STRETCH,
  POSTGRES_PEERS,
  POSTGRES_THREADMILL,
  type PostgresRow,
} from './postgres-figures';
import { missedPostgresTargets } from './postgres-missed-targets';
import type { AppTransactionFigure } from './postgres-app-transaction';
import type { PostgresRunnerResults } from './postgres-suite';

/** Who and where, for the Postgres rows. */
export interface PostgresMeta {
  /** e.g. "15.20". */
  server: string;
  /** false: PG_URL's server, whose CPU is not read. */
  privateServer: boolean;
  /** Library name -> version. */
  versions: Record<string, string>;
}

/** The Postgres part of a run's report (bench/results/*.json `postgres`). */
export interface PostgresReport {
  meta: PostgresMeta;
  config: PostgresBenchConfig;
  rows: PostgresRow[];
  raw: {
    results: Record<string, PostgresRunnerResults>;
    pool: number[];
    /** Absent from a report written before the row was measured. */
    appTransaction?: AppTransactionFigure | null;
  };
}

const COLUMNS = [POSTGRES_THREADMILL, ...POSTGRES_PEERS];

function result(row: PostgresRow): string {
  if (row.met === null) return '';
  const verdict = row.met ? 'met' : '**missed**';
  if (row.stretchMet === undefined || row.stretchMet === null) return verdict;
  return `${verdict}; stretch ${row.stretchMet ? 'met' : 'not reached'}`;
}

/** The Postgres table: each library's figure, Threadmill over the best peer, target and result. */
export function renderPostgresTable(rows: readonly PostgresRow[]): string {
  const header = ['figure', ...COLUMNS, 'Threadmill / best peer', 'target', 'result'];
  const lines = rows.map((row) => [
    `${row.label} (${row.unit}, ${row.better} is better)`,
    ...COLUMNS.map((name) => formatNumber(row.values[name] ?? null)),
    row.ratio === null ? '–' : `${row.ratio.toFixed(2)}× ${row.bestPeer}`,
    row.target ?? '',
    result(row),
  ]);
  return [header, header.map(() => '---'), ...lines]
    .map((cells) => `| ${cells.join(' | ')} |`)
    .join('\n');
}

function versionsLine(meta: PostgresMeta): string {
  const v = (name: string): string => meta.versions[name] ?? 'not run';
  return (
    `**Versions**: Postgres ${meta.server}; Threadmill ${v(POSTGRES_THREADMILL)} on its Postgres ` +
    `backend; BullMQ ${v('BullMQ')} on its own Postgres backend (\`createPostgresBackend\`); ` +
    `pg-boss ${v('pg-boss')}; graphile-worker ${v('graphile-worker')} (pg-boss 10.4 and ` +
    `graphile-worker 0.17 are the last releases that run on Node 20; their newest need Node 22).`
  );
}

function howTaken(meta: PostgresMeta, c: PostgresBenchConfig): string[] {
  return [
    `**Server**: ${meta.privateServer ? 'a private cluster started for the run (initdb, loopback, `fsync = off` as the Redis rows run without persistence, `full_page_writes = on` so the WAL is what a production server writes)' : 'the server of `PG_URL` (its CPU is not read)'}; every scenario of every library runs on a fresh database of its own, dropped afterwards.`,
    '**Each library with its defaults**: its own schema, pool and wake-ups. BullMQ is told to lay out its schema (`migrate: true`, which it asks to be said). Completed jobs are kept where the library keeps them (BullMQ, pg-boss) and deleted where it deletes them (graphile-worker).',
    "**pg-boss's drains**: its worker (`work()`) waits out its polling interval (2 s by default, 0.5 s at least) after every batch it fetched, full or not, so through it one slot drains one batch per interval; the drain rows run each slot as a loop of pg-boss's own `fetch` and `complete`, the calls its worker makes, without that wait. Its pickup row goes through `work()` with its default polling (2 s), each fetch taking up to 1000 jobs so 200/s do not outrun it.",
    "**graphile-worker's drains**: its worker starts untimed and each slot holds its first job until the timed drain begins, as the other libraries connect before theirs; a drain ends when its jobs are deleted (graphile-worker deletes a completed job).",
    `**Drains**: ${countLabel(c.drainTasks)} no-op tasks stored in bulk, then drained by ${c.drainSlots.join(', ')} concurrent slots in this process, timed to the last outcome stored; medians of ${c.reps}. A drain still running after ${c.drainLimitMs / 1000} s is cut there and measured by what it finished, so one slow library cannot hold the run up; the notes under the table name each. The pool row is Threadmill's worker pool (the sample CLI with \`DATABASE_URL\`, --exit-empty, ${c.pool ? `${countLabel(c.pool.tasks)} tasks` : 'not run'}), timed from outside; the peers have no pool of processes to run (\`n/a\`).`,
    `**Pickup**: one task every ${1000 / c.latencyRate} ms to an idle consumer of ${c.latencySlots} slot, ${c.latencyCount} of them; from just before the enqueue call to the handler's start. A run that did not see every task it sent within 5 s of the last is shown as \`–\`.`,
    `**The app's transaction**: Threadmill alone (the peers' cells \`n/a\`): one client of the app's, \`synchronous_commit = on\`, runs ${c.sequentialTasks} transactions one after another, each \`BEGIN\`, an insert of the app's own row, \`COMMIT\`; then the same with one enqueue (the \`transaction\` option through the \`pg\` adapter) before the \`COMMIT\`, each in a fresh database. The ratio is the second's transactions/s over the first's; the statements added are every statement of the window over the transactions, the backend's own connections' included (the ingress count it makes apart, beside the app's).`,
    `**Backlog**: slices of ${countLabel(c.backlogSlice)} drained at ${c.heavySlots} slots with ${countLabel(c.backlogLarge)} more waiting, over the same with ${countLabel(c.backlogSmall)} waiting.`,
    `**Held horizon**: another session opens \`BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1;\` and keeps it open ${Math.round(c.horizonHoldMs / 1000)} s while slices of ${countLabel(c.drainTasks)} are stored and drained at ${c.heavySlots} slots; their rate over the plain ${c.heavySlots}-slot drain.`,
    `**Outbox**: a Redis alias (a private redis-server) with its outbox in a fresh database, its relay in this process: ${c.latencyCount} transactions of one task each, one every ${1000 / c.latencyRate} ms, timed from each commit's return to the task's \`enqueued\` event on the live feed (published by the move); then ${countLabel(c.enqueueTasks)} tasks in transactions of ${countLabel(c.bulkBatch)} committed back to back, timed from the first commit to the last task in Redis. Medians of ${c.reps}.`,
    `**Costs**: database CPU is every Postgres process's user and system time from /proc (the backends that exited counted through the postmaster); WAL is the difference of \`pg_current_wal_lsn()\`; statements are counted on the client (node-postgres' \`Client.query\`, one round trip each). The per-task rows add the 100-in-flight enqueue's cost to the ${c.heavySlots}-slot drain's.`,
  ];
}

/** The "Postgres" section of docs/benchmarks.md, from one run's Postgres report. */
export function postgresSection(report: PostgresReport): string[] {
  const { meta, config, rows } = report;
  const judged = rows.filter((row) => row.met !== null);
  const missed = judged.filter((row) => row.met === false);
  const reasons = missedPostgresTargets(rows, config.latencyRate).flatMap(bullet);
  const cut = rows.filter((row) => row.cutShort?.length);
  return [
    '## Postgres',
    '',
    ...paragraph(
      'Threadmill on its Postgres backend against the Postgres queues a Nest team would otherwise pick, on one private Postgres in the same run. ' +
        `Targets: ahead of every peer on every row; the ${config.heavySlots}-slot drain at least the best peer, ${DRAIN_STRETCH}× the best as the stretch figure; the backlog and held-horizon rows at least 0.8 of the plain drain; the outbox of a Redis alias, Threadmill's alone, a commit-to-Redis p99 of at most 50 ms and bulks moved at least half as fast as its own bulk enqueue on Postgres.` +
        (config.mode === 'quick'
          ? ` A \`--quick\` run: sizes scaled down (a backlog of ${countLabel(config.backlogLarge)} instead of 1M, the horizon held ${Math.round(config.horizonHoldMs / 1000)} s instead of 60 s).`
          : ''),
    ),
    '',
    ...bullet(versionsLine(meta)),
    '',
    renderPostgresTable(rows),
    '',
    ...paragraph(
      `Threadmill / best peer is Threadmill's figure over the best peer's of the row (named). \`–\`: not measured; \`n/a\`: the library has nothing to measure there. ` +
        `Targets met: ${judged.length - missed.length} of ${judged.length}` +
        (missed.length ? `; missed: ${missed.map((row) => row.label).join(', ')}.` : '.') +
        (cut.length
          ? ` Cut short at ${config.drainLimitMs / 1000} s (the rate is what finished by then): ${cut.map((row) => `${row.label} (${row.cutShort?.join(', ')})`).join('; ')}.`
          : ''),
    ),
    ...(reasons.length
      ? ['', 'What holds the missed targets back, by this run’s figures:', '', ...reasons]
      : []),
    '',
    '### How the Postgres figures are taken',
    '',
    ...howTaken(meta, config).flatMap(bullet),
  ];
}
