import { formatNumber } from '../report';
import { POSTGRES_THREADMILL, type PerTaskCost, type PostgresRow } from './postgres-figures';

// Why a Postgres target missed, told with the same run's figures (the
// per-task costs of the very windows the row's values came from).

type Rows = ReadonlyMap<string, PostgresRow>;

const fixed = (value: number, digits = 1): string => value.toFixed(digits);
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

function costLine(name: string, cost: PerTaskCost): string {
  const db = cost.dbCpuMicros === null ? '' : `, ${fixed(cost.dbCpuMicros, 0)} µs of database CPU`;
  return (
    `${name} ${fixed(cost.roundTrips, 2)} statements${db}, ${fixed(cost.clientCpuMicros, 0)} µs ` +
    `of its own process's CPU and ${fixed(cost.walBytes, 0)} B of WAL`
  );
}

/** Where the time per task went, ours against the best peer's: the larger gap named. */
function rateReason(row: PostgresRow): string | null {
  const ours = num(row.values[POSTGRES_THREADMILL]);
  const peer = row.bestPeer;
  const theirs = peer === null ? null : num(row.values[peer]);
  const a = row.costs?.[POSTGRES_THREADMILL];
  const b = peer === null ? null : row.costs?.[peer];
  if (ours === null || theirs === null || !a || !b || peer === null) return null;
  const gaps: [string, number][] = [
    ['this process’s own CPU per task', a.clientCpuMicros - b.clientCpuMicros],
    ...(a.dbCpuMicros !== null && b.dbCpuMicros !== null
      ? [['the database’s CPU per task', a.dbCpuMicros - b.dbCpuMicros] as [string, number]]
      : []),
  ];
  const [what, gap] = gaps.reduce((x, y) => (y[1] > x[1] ? y : x));
  return (
    `${formatNumber(ours)} against ${peer}’s ${formatNumber(theirs)} ${row.unit}: ` +
    `${fixed(1e6 / ours, 0)} against ${fixed(1e6 / theirs, 0)} µs a task. Per task, ` +
    `${costLine(POSTGRES_THREADMILL, a)}; ${costLine(peer, b)}` +
    (gap > 0 ? `. The larger gap is ${what}, ${fixed(gap, 0)} µs more a task.` : '.')
  );
}

function pickupReason(row: PostgresRow, rows: Rows, rate: number): string | null {
  const ours = num(row.values[POSTGRES_THREADMILL]);
  const peer = row.bestPeer;
  const theirs = peer === null ? null : num(row.values[peer]);
  const enqueue = rows.get('enqueue.sequential')?.costs;
  if (ours === null || theirs === null || peer === null) return null;
  const ourEnqueue = enqueue?.[POSTGRES_THREADMILL];
  const peerEnqueue = enqueue?.[peer];
  const oneSlot = num(rows.get('drain.1')?.values[POSTGRES_THREADMILL]);
  return (
    `${fixed(ours, 2)} against ${peer}’s ${fixed(theirs, 2)} ms, from the enqueue call to the ` +
    `handler’s start.` +
    (ourEnqueue && peerEnqueue
      ? ` A lone enqueue took ${fixed(ourEnqueue.roundTrips, 2)} statements for ours (one ` +
        `call of threadmill_enqueue) and ${fixed(peerEnqueue.roundTrips, 2)} for ${peer}’s.`
      : '') +
    (oneSlot !== null && oneSlot < rate
      ? ` One slot drained ${Math.round(oneSlot)} tasks/s in this run, below the ${rate}/s sent: ` +
        `the consumer falls behind and the pickups wait in line.`
      : '')
  );
}

function keepsRateReason(why: string) {
  return (row: PostgresRow, rows: Rows): string | null => keptRate(row, rows, why);
}

function keptRate(row: PostgresRow, rows: Rows, why: string): string | null {
  const share = num(row.values[POSTGRES_THREADMILL]);
  const under = row.costs?.[POSTGRES_THREADMILL];
  const plain = rows.get('drain.100')?.costs?.[POSTGRES_THREADMILL];
  if (share === null || !under || !plain) return null;
  const db =
    under.dbCpuMicros !== null && plain.dbCpuMicros !== null
      ? ` Database CPU per task: ${fixed(under.dbCpuMicros, 0)} µs against ${fixed(plain.dbCpuMicros, 0)} µs in the plain drain;`
      : '';
  return (
    `${fixed(share, 2)} of the plain drain.${db} statements per task ` +
    `${fixed(under.roundTrips, 2)} against ${fixed(plain.roundTrips, 2)}: the same statements; ${why}.`
  );
}

/** Database CPU or WAL per task: its enqueue and drain parts, ours and the best peer's. */
function lifetimeReason(field: 'dbCpuMicros' | 'walBytes', unit: string) {
  return (row: PostgresRow, rows: Rows): string | null => {
    const peer = row.bestPeer;
    if (peer === null) return null;
    const parts = (name: string): string | null => {
      const enqueue = rows.get('enqueue.concurrent')?.costs?.[name]?.[field];
      const drain = rows.get('drain.100')?.costs?.[name]?.[field];
      if (enqueue === null || enqueue === undefined || drain === null || drain === undefined)
        return null;
      return `${name} ${fixed(enqueue, 0)} ${unit} to enqueue and ${fixed(drain, 0)} ${unit} to run`;
    };
    const ours = parts(POSTGRES_THREADMILL);
    const theirs = parts(peer);
    return ours && theirs ? `${ours}; ${theirs}.` : null;
  };
}

/** What the enqueue added to the app's transaction, beside the statements of the transaction alone. */
function inAppReason(row: PostgresRow): string | null {
  const extra = num(row.values[POSTGRES_THREADMILL]);
  if (extra === null) return null;
  return (
    `${fixed(extra, 2)} statements a transaction: the enqueue's call of threadmill_enqueue in ` +
    `the app's transaction, and the ingress count the backend makes apart on its own connection.`
  );
}

const REASONS: Record<string, (row: PostgresRow, rows: Rows) => string | null> = {
  'appTransaction.roundTrips': inAppReason,
  backlog: keepsRateReason('each reads more of a larger table and its indexes'),
  heldHorizon: keepsRateReason(
    'each reads more (index entries of rows no longer visible, which vacuum may not remove yet)',
  ),
  dbCpu: lifetimeReason('dbCpuMicros', 'µs'),
  wal: lifetimeReason('walBytes', 'B'),
};

/** One bullet per missed target (label first), in table order; `rate`: the pickup figure's tasks/s. */
export function missedPostgresTargets(rows: readonly PostgresRow[], rate: number): string[] {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  const pickup = (row: PostgresRow, all: Rows) => pickupReason(row, all, rate);
  return rows
    .filter((row) => row.met === false)
    .flatMap((row) => {
      const reason = (row.key.startsWith('latency.') ? pickup : (REASONS[row.key] ?? rateReason))(
        row,
        byKey,
      );
      return reason === null ? [] : [`**${row.label}**: ${reason}`];
    });
}
