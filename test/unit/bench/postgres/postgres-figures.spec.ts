import { POSTGRES_QUICK } from '../../../../bench/postgres/postgres-bench-config';
import type { PostgresWindowCost } from '../../../../bench/postgres/postgres-cost-meter';
import { buildPostgresRows, type PostgresRow } from '../../../../bench/postgres/postgres-figures';
import { missedPostgresTargets } from '../../../../bench/postgres/postgres-missed-targets';
import { renderPostgresTable } from '../../../../bench/postgres/postgres-page';
import type { PostgresSample } from '../../../../bench/postgres/postgres-scenarios';
import type { PostgresRunnerResults } from '../../../../bench/postgres/postgres-suite';

const config = POSTGRES_QUICK;

/** `tasks` drained at `perSecond`, each task costing the given statements and CPU. */
function sample(
  tasks: number,
  perSecond: number,
  extra: Partial<PostgresSample> = {},
): PostgresSample {
  const cost: PostgresWindowCost = {
    seconds: tasks / perSecond,
    clientCpuMicros: tasks * 100,
    dbCpuMicros: tasks * 200,
    walBytes: tasks * 500,
    roundTrips: tasks * 2,
  };
  return { tasks, cost, ...extra };
}

/** A library whose every rate is `perSecond` and whose pickup p50 is `p50Ms`. */
function results(perSecond: number, p50Ms: number): PostgresRunnerResults {
  const drain = Object.fromEntries(
    config.drainSlots.map((slots) => [slots, [sample(1000, perSecond)]]),
  );
  return {
    drain,
    enqueue: {
      sequential: [sample(100, perSecond)],
      concurrent: [sample(1000, perSecond)],
      bulk: [sample(1000, perSecond)],
    },
    latency: [
      { sent: 300, seen: 300, p50Ms, p95Ms: p50Ms * 2, p99Ms: p50Ms * 3, maxMs: p50Ms * 4 },
    ],
    backlog: {
      [config.backlogSmall]: [sample(1000, perSecond)],
      [config.backlogLarge]: [sample(1000, perSecond * 0.9)],
    },
    heldHorizon: { heldMs: 15_000, slices: [sample(1000, perSecond * 0.5)] },
  };
}

function row(rows: readonly PostgresRow[], key: string): PostgresRow {
  const found = rows.find((r) => r.key === key);
  if (!found) throw new Error(`no row ${key}`);
  return found;
}

describe('buildPostgresRows', () => {
  const rows = buildPostgresRows(
    config,
    {
      Threadmill: results(3000, 5),
      BullMQ: results(1000, 20),
      'pg-boss': results(500, 1000),
      'graphile-worker': {
        ...results(2000, 2),
        drain: { ...results(2000, 2).drain, 100: [sample(500, 100, { cutShort: true })] },
      },
    },
    [4000],
  );

  it('judges a rate against the best peer of the row and names it', () => {
    const bulk = row(rows, 'enqueue.bulk');
    expect(bulk).toMatchObject({ bestPeer: 'graphile-worker', met: true, target: '> every peer' });
    expect(bulk.ratio).toBeCloseTo(1.5);
  });

  it('judges a lower-is-better row the other way', () => {
    expect(row(rows, 'latency.p50')).toMatchObject({ bestPeer: 'graphile-worker', met: false });
  });

  it('reports the 100-slot drain’s stretch apart from its target, and which drains were cut short', () => {
    expect(row(rows, 'drain.100')).toMatchObject({
      met: true,
      stretchMet: true,
      cutShort: ['graphile-worker'],
    });
  });

  it('judges the backlog and held-horizon rows on Threadmill’s own share of its plain drain', () => {
    expect(row(rows, 'backlog').values.Threadmill).toBeCloseTo(0.9);
    expect(row(rows, 'backlog').met).toBe(true);
    expect(row(rows, 'heldHorizon')).toMatchObject({ met: false, target: '≥ 0.8' });
  });

  it('gives the pool row to Threadmill alone, unjudged', () => {
    expect(row(rows, 'drain.pool')).toMatchObject({
      values: { Threadmill: 4000, BullMQ: 'n/a', 'pg-boss': 'n/a', 'graphile-worker': 'n/a' },
      met: null,
    });
  });

  it('adds the enqueue’s and the drain’s costs into the per-task rows', () => {
    expect(row(rows, 'dbCpu').values.Threadmill).toBe(400);
    expect(row(rows, 'wal').values.Threadmill).toBe(1000);
    expect(row(rows, 'roundTrips').values.Threadmill).toBe(4);
  });

  it('leaves a pickup percentile unmeasured when a run did not see every task it sent', () => {
    const slow = results(1000, 5);
    slow.latency[0].seen = 100;
    const [p50] = buildPostgresRows(config, { Threadmill: slow }, []).filter(
      (r) => r.key === 'latency.p50',
    );
    expect(p50.values.Threadmill).toBeNull();
    expect(p50.met).toBeNull();
  });

  it("judges the statements an enqueue adds to the app's transaction against at most one", () => {
    const window = (seconds: number, roundTrips: number): PostgresWindowCost => ({
      seconds,
      clientCpuMicros: 0,
      dbCpuMicros: null,
      walBytes: 0,
      roundTrips,
    });
    const judged = (roundTrips: number) =>
      buildPostgresRows(config, { Threadmill: results(1000, 5) }, [], {
        transactions: 100,
        withEnqueue: window(0.5, roundTrips),
        without: window(0.4, 300),
      });
    const added = row(judged(400), 'appTransaction.roundTrips');
    expect(added).toMatchObject({ target: '≤ 1', met: true });
    expect(added.values).toMatchObject({ Threadmill: 1, BullMQ: 'n/a' });
    expect(row(judged(400), 'appTransaction.ratio').values.Threadmill).toBeCloseTo(0.8);
    const missed = judged(500);
    expect(row(missed, 'appTransaction.roundTrips').met).toBe(false);
    expect(missedPostgresTargets(missed, config.latencyRate).join('\n')).toContain(
      '2.00 statements a transaction',
    );
  });

  it('renders a table with a column per library and says why a missed target missed', () => {
    const table = renderPostgresTable(rows);
    expect(table.split('\n')[0]).toBe(
      '| figure | Threadmill | BullMQ | pg-boss | graphile-worker | Threadmill / best peer | target | result |',
    );
    expect(table).toContain('met; stretch met');
    const reasons = missedPostgresTargets(rows, config.latencyRate);
    expect(reasons.some((reason) => reason.startsWith('**pickup p50'))).toBe(true);
    expect(reasons.find((reason) => reason.includes('vacuum horizon'))).toMatch(
      /of the plain drain/,
    );
  });
});
