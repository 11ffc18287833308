import { PROGRESS_ROW_KEY } from './progress-figures';
import type { ReportedRow } from './report';
import { ROUND_TRIP_LIMIT_ROW_KEY } from './round-trip-figures';

// What bounds each target that can miss, told with the same run's figures, so
// the page says why beside the number (the measurements behind each reason
// are named in it).

type Rows = ReadonlyMap<string, ReportedRow>;
type Reason = (row: ReportedRow, rows: Rows) => string | null;

const num = (value: number | null | undefined | 'n/a'): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const fixed = (value: number, digits = 1): string => value.toFixed(digits);
const micros = (perSecond: number): string => fixed(1e6 / perSecond, 0);

const REASONS: Record<string, Reason> = {
  'drain.inProcess.100': (row, rows) => {
    const redisCpu = num(rows.get('redisCpu.100')?.threadmill);
    const rate = num(row.threadmill);
    const bullmq = num(row.bullmq);
    if (redisCpu === null || rate === null || bullmq === null) return null;
    return (
      `Redis is the bottleneck here, not the worker: ${fixed(redisCpu)} µs of Redis CPU per task at ` +
      `${Math.round(rate)} tasks/s keeps it ${fixed((rate * redisCpu) / 1e6, 2)} of one core busy (Redis ` +
      `runs commands on one thread). 3× BullMQ's ${Math.round(bullmq)} tasks/s needs at most ` +
      `${fixed(1e6 / (3 * bullmq))} µs of Redis time per task.`
    );
  },
  'drain.pool.p1t100': (row, rows) => {
    const inProcess = num(rows.get('drain.inProcess.100')?.threadmill);
    const pool = num(row.threadmill);
    if (inProcess === null || pool === null) return null;
    return (
      `The same drain in-process reaches ${Math.round(inProcess)} tasks/s; the pool child adds ` +
      `its own work per task (task runner, held-task journal, metrics, messages to the main process), ` +
      `on the same 2 cores as Redis: ${fixed(pool / inProcess, 2)} of the in-process rate.`
    );
  },
  'drain.pool.p1t1f1': (_row, rows) => {
    const trips = num(rows.get('roundTrips.1')?.threadmill);
    if (trips === null) return null;
    return (
      `At one slot every task is still one store call (${fixed(trips, 2)} round trips per task ` +
      `in-process): a task fetched ahead overlaps that call with the run, and a no-op task has ` +
      `almost no run to overlap.`
    );
  },
  [ROUND_TRIP_LIMIT_ROW_KEY]: (row, rows) => {
    const rate = num(rows.get('drain.inProcess.1')?.threadmill);
    const share = num(row.threadmill);
    if (rate === null || share === null) return null;
    const perTask = 1e6 / rate;
    return (
      `Of each task's ${fixed(perTask, 0)} µs, the round trip and the scripts take ` +
      `${fixed(perTask * share, 0)} µs; the rest is the client's own time per call ` +
      `(encoding the outcome and the lease, ioredis, the socket write and read).`
    );
  },
  'enqueue.sequential': (row) => {
    const rate = num(row.threadmill);
    const beeQueue = num(row.beeQueue);
    if (rate === null || beeQueue === null) return null;
    return (
      `Both make one round trip per task; ours takes ${micros(rate)} µs a task against ` +
      `Bee-Queue's ${micros(beeQueue)}. Our script makes seven Redis calls (task data, clock, ` +
      `sequence, ready queue, ingress count, wake-up token, listener check) where Bee-Queue's ` +
      `makes four, and the client builds a full task record (id, JSON guard, encoding) for each.`
    );
  },
  'latency.p50': pickupReason,
  'latency.p95': pickupReason,
  'latency.p99': pickupReason,
  'backlog.flatness': (_row, rows) => {
    const [small, middle, large] = ['10000', '100000', '1000000'].map((size) =>
      num(rows.get(`backlog.${size}`)?.threadmill),
    );
    if (small === null || middle === null || large === null) return null;
    return (
      `Drains of the three backlogs: 10k ${Math.round(small)}, 100k ${Math.round(middle)}, 1M ` +
      `${Math.round(large)} tasks/s, each the median of three 30k slices once Redis settled. No ` +
      `step of a lease reads more for a longer queue (a pop from the head of a sorted set, the ` +
      `task's own hash), and ${middle >= small ? 'the 100k backlog drained no slower than the 10k one' : 'the 100k backlog drained slower than the 10k one'}: ` +
      `slices of 30k swing by tens of percent from run to run on a 2-core machine, more than ` +
      `this row's 20%.`
    );
  },
  'enqueue.concurrentOfBulk': (row, rows) => {
    const share = num(row.sqlite);
    const bulk = num(rows.get('enqueue.bulk')?.sqlite);
    if (share === null || bulk === null) return null;
    return (
      `On SQLite each batch of gathered enqueues is one transaction and one commit: 100 in ` +
      `flight make batches of up to 100 against the bulk's 1000. A commit appends every page ` +
      `it changed to the WAL (the new rows and the last page of each of the task table's ` +
      `indexes), so a batch a tenth the size writes several times the pages per task, and ` +
      `checkpoints come as much sooner (${Math.round(share * bulk)} against ${Math.round(bulk)} tasks/s).`
    );
  },
  'memory.perWaitingTask': (row) => {
    const bytes = num(row.threadmill);
    if (bytes === null) return null;
    return (
      `${Math.round(bytes)} B: a waiting task is a hash of its own, whose data field with a ` +
      `100-byte payload is longer than Redis's \`hash-max-listpack-value\` (64 B), so Redis keeps ` +
      `it as a hash table (about 430 B by \`MEMORY USAGE\`), plus its ready-queue entry (about ` +
      `135 B). 400 B needs a layout without a hash per waiting task.`
    );
  },
  [PROGRESS_ROW_KEY]: () =>
    'The reporting run stores progress in one call per 500 ms for all 30 tasks (each last ' +
    'value rides with its outcome), so what shows is each report itself, against a silent ' +
    'run that costs its worker little (30 tasks share one timer-driven loop).',
};

/**
 * Pickup percentiles: both libraries take two round trips after the enqueue,
 * so what differs is the Redis work on the way (the lease is no hand-off).
 */
function pickupReason(row: ReportedRow, rows: Rows): string | null {
  const ours = num(row.threadmill);
  const beeQueue = num(row.beeQueue);
  const sequential = rows.get('enqueue.sequential');
  const enqueue = num(sequential?.threadmill);
  const beeEnqueue = num(sequential?.beeQueue);
  if (ours === null || beeQueue === null || enqueue === null || beeEnqueue === null) return null;
  return (
    `${fixed(ours, 2)} against Bee-Queue's ${fixed(beeQueue, 2)} ms. Both take two round trips ` +
    `after the enqueue: ours wakes a consumer blocked on the queue's token list, which then ` +
    `leases in a script of its own (clock, listener and pause checks, the pop, the task's data, ` +
    `its lease fields and the running set); Bee-Queue's worker pops the job id itself and reads ` +
    `its data with one HGET. The enqueue before it is dearer too (${micros(enqueue)} against ` +
    `${micros(beeEnqueue)} µs a task in the sequential row). A lease handed over with the ` +
    `wake-up would save one of the trips; it is not built.`
  );
}

/** The reasons of this run’s missed targets, one bullet each (label first), in table order. */
export function missedTargetReasons(figures: readonly ReportedRow[]): string[] {
  const rows = new Map(figures.map((row) => [row.key, row]));
  return figures
    .filter((row) => row.met === false)
    .flatMap((row) => {
      const reason = REASONS[row.key]?.(row, rows) ?? null;
      return reason === null ? [] : [`**${row.label}**: ${reason}`];
    });
}
