import { CLI_START_ROW_KEYS } from './cli-start-figures';
import { BACKEND_LEVEL_ROW_KEY } from './enqueue-figures';
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
  'drain.inProcess.1': (row, rows) => {
    const rate = num(row.threadmill);
    const bullmq = num(row.bullmq);
    const beeQueue = num(row.beeQueue);
    const shares = rows.get(ROUND_TRIP_LIMIT_ROW_KEY);
    const share = num(shares?.threadmill);
    if (rate === null || bullmq === null || beeQueue === null || share === null) return null;
    const perTask = 1e6 / rate;
    const peerShare = (value: number | null, name: string): string =>
      value === null ? '' : `, ${name} ${fixed(value, 2)}`;
    return (
      `${Math.round(rate)} tasks/s against BullMQ's ${Math.round(bullmq)} and Bee-Queue's ` +
      `${Math.round(beeQueue)}. At one slot every library waits for one round trip per task, so ` +
      `the host's round trip bounds all three: of each of our tasks' ${fixed(perTask, 0)} µs, the ` +
      `round trip and the scripts take ${fixed(perTask * share, 0)} µs (${fixed(share, 2)} of one ` +
      `task per bare round trip and script time${peerShare(num(shares?.bullmq), 'BullMQ')}` +
      `${peerShare(num(shares?.beeQueue), 'Bee-Queue')}); the rest is the client's own time per ` +
      `call (encoding the outcome and the lease, ioredis, the socket write and read).`
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
  'drain.pool.p1t1f1': (row, rows) => {
    const trips = num(rows.get('roundTrips.1')?.threadmill);
    const pool = num(row.threadmill);
    const bullmq = num(row.bullmq);
    if (trips === null || pool === null || bullmq === null) return null;
    return (
      `${Math.round(pool)} tasks/s against BullMQ's ${Math.round(bullmq)}. At one slot every ` +
      `task is still one store call (${fixed(trips, 2)} round trips per task in-process): a task ` +
      `fetched ahead overlaps that call with the run, and a no-op task has almost no run to overlap.`
    );
  },
  'enqueue.sequential': (row, rows) => {
    const rate = num(row.threadmill);
    const bullmq = num(row.bullmq);
    if (rate === null || bullmq === null) return null;
    const added = taskServiceMicros(rows);
    return (
      `Each call through TaskService takes ${micros(rate)} µs against ${micros(bullmq)} µs for ` +
      `BullMQ's \`Queue.add\`; both make one round trip per task, so the difference is each ` +
      `side's own time per call.` +
      (added === null
        ? ''
        : ` TaskService's share of ours (resolving the options, checking and serializing the ` +
          `arguments, the id, the coalescer) is about ${fixed(added, 0)} µs a task, by the ` +
          `100-in-flight rows through it and at backend level.`)
    );
  },
  'enqueue.sequentialKeyed': (row, rows) => {
    const times = num(row.threadmill);
    const plain = num(rows.get('enqueue.sequential')?.threadmill);
    if (times === null || plain === null) return null;
    const plainMicros = 1e6 / plain;
    return (
      `A keyed enqueue took ${fixed(times * plainMicros, 0)} µs against ${fixed(plainMicros, 0)} µs ` +
      `plain. TaskService first makes the key from the task's arguments, and the store call goes ` +
      `through enqueueUnique.lua, which checks the key's hold and takes it beside the task in the ` +
      `same atomic step, where a plain enqueue runs the shorter enqueue.lua; both make one round ` +
      `trip, so the difference is that work on each side.`
    );
  },
  'enqueue.concurrent': (row, rows) => {
    const rate = num(row.threadmill);
    const beeQueue = num(row.beeQueue);
    const backendLevel = num(rows.get(BACKEND_LEVEL_ROW_KEY)?.threadmill);
    const added = taskServiceMicros(rows);
    if (rate === null || beeQueue === null || backendLevel === null || added === null) return null;
    return (
      `${Math.round(rate)} tasks/s through TaskService against Bee-Queue's ${Math.round(beeQueue)}; ` +
      `the same enqueues at backend level, records built by the benchmark, reach ` +
      `${Math.round(backendLevel)} tasks/s. TaskService adds about ${fixed(added, 1)} µs a task ` +
      `(resolving the options, checking and serializing the arguments, the id, the coalescer)` +
      (backendLevel >= beeQueue
        ? ', which is what puts us behind Bee-Queue here.'
        : ', and the backend alone is behind Bee-Queue too.')
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
    const bullmq = num(row.bullmq);
    if (bytes === null || bullmq === null) return null;
    return (
      `${Math.round(bytes)} B against BullMQ's ${Math.round(bullmq)} B: a waiting task is a hash ` +
      `of its own, whose data field with a 100-byte payload is longer than Redis's ` +
      `\`hash-max-listpack-value\` (64 B), so Redis keeps it as a hash table (about 430 B by ` +
      `\`MEMORY USAGE\`), plus its ready-queue entry (about 135 B).`
    );
  },
  [CLI_START_ROW_KEYS.result]: cliStartReason,
  [CLI_START_ROW_KEYS.queuesList]: cliStartReason,
  [PROGRESS_ROW_KEY]: () =>
    'The reporting run stores progress in one call per 500 ms for all 30 tasks (each last ' +
    'value rides with its outcome), so what shows is each report itself, against a silent ' +
    'run that costs its worker little (30 tasks share one timer-driven loop).',
};

/**
 * What TaskService adds to each enqueue (µs): the 100-in-flight rate through
 * it against the same enqueues at backend level, where the client's time per
 * task is what bounds both. Null without both rows.
 */
function taskServiceMicros(rows: Rows): number | null {
  const through = num(rows.get('enqueue.concurrent')?.threadmill);
  const below = num(rows.get(BACKEND_LEVEL_ROW_KEY)?.threadmill);
  if (through === null || below === null) return null;
  return 1e6 / through - 1e6 / below;
}

/**
 * A CLI command's start: what Node and loading the entry's modules take
 * before the CLI runs any code of its own, and what is left for it.
 */
function cliStartReason(row: ReportedRow, rows: Rows): string | null {
  const total = num(row.threadmill);
  const node = num(rows.get(CLI_START_ROW_KEYS.node)?.threadmill);
  const modules = num(rows.get(CLI_START_ROW_KEYS.modules)?.threadmill);
  if (total === null || node === null || modules === null) return null;
  return (
    `${fixed(total, 0)} ms from spawn to exit. Node alone takes ${fixed(node, 0)} ms, and ` +
    `loading what the entry imports (the sample app, Nest, nest-commander, Threadmill, ioredis) ` +
    `${fixed(modules - node, 0)} ms more, all before the CLI runs: the rest, ` +
    `${fixed(total - modules, 0)} ms, is Nest booting Threadmill's module alone (the app's own ` +
    `providers are not built for this command), the connection to Redis, the command and the exit.`
  );
}

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
    `its data with one HGET. Our enqueue is dearer too: ${micros(enqueue)} against ` +
    `${micros(beeEnqueue)} µs a task in the sequential row (through TaskService; the pickup ` +
    `figure enqueues at backend level, without TaskService's part). A lease handed over with ` +
    `the wake-up would save one of the trips; it is not built.`
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
