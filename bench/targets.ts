import { ratioOf, type Target } from './report';

// The targets the benchmark judges Threadmill by, beside the peers' reference figures.

/**
 * Reference figures of Bee-Queue 2.0, measured on another machine: what a
 * target that names Bee-Queue is judged against when this run did not
 * measure it (e.g. `--only threadmill`), and the target's text says so.
 */
export const BEE_QUEUE_REFERENCE = {
  bulkEnqueuePerSecond: 95_000,
  concurrentEnqueuePerSecond: 65_700,
  pickupP99Ms: 1.5,
  memoryPerTaskBytes: 280,
} as const;
const REFERENCE_FIGURE = 'reference figure';

export const atLeastRatio = (min: number): Target => ({
  text: min === 1 ? '≥ BullMQ' : `≥ ${min}× BullMQ`,
  check: (row) => {
    const ratio = ratioOf(row);
    return ratio === null ? null : ratio >= min;
  },
});

/** At least BullMQ's figure of this run (sequential enqueue, the prefetch pool row). */
export const atLeastBullmq = atLeastRatio(1);

/**
 * One slot in-process: ahead of both peers of this run. Every library makes
 * one round trip per task there; how near the host's limit that is, is
 * the round-trip row's figure (bench/round-trip-figures.ts), reported, not
 * judged. Not judged without both peers: there is no reference figure for it.
 */
export const aheadOfBothPeers: Target = {
  text: '> BullMQ and > Bee-Queue',
  check: (row) => {
    if (row.threadmill === null || row.bullmq === null || row.beeQueue === null) return null;
    return row.threadmill > row.bullmq && row.threadmill > row.beeQueue;
  },
};

export const atMostRatio = (max: number, text: string): Target => ({
  text,
  check: (row) => {
    const ratio = ratioOf(row);
    return ratio === null ? null : ratio <= max;
  },
});

export const atMost = (limit: number, text: string): Target => ({
  text,
  check: (row) => (row.threadmill === null ? null : row.threadmill <= limit),
});

/**
 * Bulk enqueue: ≥ 3× BullMQ and ahead of Bee-Queue, the one measured in this
 * run when there is one (`beeQueue`), else the reference figure, and the text says which.
 */
export function bulkEnqueueTarget(beeQueue: number | null): Target {
  const peer = beeQueue ?? BEE_QUEUE_REFERENCE.bulkEnqueuePerSecond;
  return {
    text:
      beeQueue === null
        ? `≥ 3× BullMQ and > Bee-Queue (${peer / 1000}k/s, ${REFERENCE_FIGURE})`
        : '≥ 3× BullMQ and > Bee-Queue',
    check: (row) => {
      const ratio = ratioOf(row);
      if (ratio === null || row.threadmill === null) return null;
      return ratio >= 3 && row.threadmill > peer;
    },
  };
}

/**
 * At least Bee-Queue's rate (enqueue with 100 in flight): this run's
 * figure when measured, else the reference figure, and the text says which.
 */
export function enqueueRateTarget(beeQueue: number | null, reference: number): Target {
  const peer = beeQueue ?? reference;
  return {
    text:
      beeQueue === null ? `≥ Bee-Queue (${peer / 1000}k/s, ${REFERENCE_FIGURE})` : '≥ Bee-Queue',
    check: (row) => (row.threadmill === null ? null : row.threadmill >= peer),
  };
}

/**
 * Pickup at light load, each percentile no worse than Bee-Queue's in this
 * run; without it, p99 is judged on the reference figure and the others not at all.
 */
export function pickupTarget(percentile: string, beeQueue: number | null): Target | undefined {
  if (beeQueue !== null) return atMost(beeQueue, '≤ Bee-Queue');
  if (percentile !== 'p99') return undefined;
  const peer = BEE_QUEUE_REFERENCE.pickupP99Ms;
  return atMost(peer, `≤ Bee-Queue (${peer} ms, ${REFERENCE_FIGURE})`);
}

/**
 * Memory per waiting task (a plain task: 100-byte payload, no unique key, no
 * trace context): at most BullMQ's of this run (the check, not judged
 * without it), and how far from Bee-Queue's (the text only): this run's
 * figure when measured, else the reference.
 */
export function memoryTarget(threadmill: number | null, beeQueue: number | null): Target {
  let peer: string;
  if (beeQueue === null) {
    peer = `Bee-Queue: ${BEE_QUEUE_REFERENCE.memoryPerTaskBytes} B, ${REFERENCE_FIGURE}`;
  } else if (threadmill === null || beeQueue <= 0) {
    peer = `Bee-Queue: ${beeQueue.toFixed(0)} B`;
  } else {
    peer = `Bee-Queue: ${beeQueue.toFixed(0)} B, ours ${(threadmill / beeQueue).toFixed(2)}× that`;
  }
  return atMostRatio(1, `≤ BullMQ (${peer})`);
}

/** SQLite: enqueues in flight gathered into transactions reach at least this share of its own bulk rate. */
export const SQLITE_IN_FLIGHT_SHARE = 0.8;

/** Judges the SQLite column (the Redis one is shown beside it, not judged). */
export const sqliteInFlightTarget: Target = {
  text: `SQLite ≥ ${SQLITE_IN_FLIGHT_SHARE} of its bulk`,
  check: (row) => (typeof row.sqlite === 'number' ? row.sqlite >= SQLITE_IN_FLIGHT_SHARE : null),
};
