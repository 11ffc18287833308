import { Client } from 'pg';

import { PostgresBackend } from '../../lib/backends/postgres/postgres.backend';
import { pgTransaction } from '../../lib/backends/postgres/transactions/pg-transaction';
import { newRecord } from '../../lib/backend-kit';
import { storeRules } from '../../lib/lifecycle/store-rules';
import type { BenchPostgresServer } from './bench-postgres-server';
import type { PostgresCostMeter, PostgresWindowCost } from './postgres-cost-meter';

const ALIAS = 'bench';
const QUEUE = 'default';

/** The app's transactions with an enqueue in each, and the same without. */
export interface AppTransactionFigure {
  transactions: number;
  withEnqueue: PostgresWindowCost;
  without: PostgresWindowCost;
}

/** Transactions/s of a window. */
const rateOf = (cost: PostgresWindowCost, transactions: number): number =>
  transactions / cost.seconds;

/** The app's transaction with an enqueue over the same without: its rate, and the statements it added. */
export function appTransactionFigures(figure: AppTransactionFigure): {
  ratio: number;
  extraRoundTrips: number;
} {
  const { transactions, withEnqueue, without } = figure;
  return {
    ratio: rateOf(withEnqueue, transactions) / rateOf(without, transactions),
    extraRoundTrips: (withEnqueue.roundTrips - without.roundTrips) / transactions,
  };
}

/**
 * What an enqueue adds to the app's own transaction (Threadmill's alone:
 * the `transaction` option through the `pg` adapter): one client of the
 * app's, synchronous_commit on, running one after another `BEGIN; INSERT
 * the app's row; COMMIT`, then the same with an enqueue of one task before
 * the COMMIT, each in a fresh database. Every statement of the window is
 * counted, the backend's own connections' included (the ingress it counts
 * apart).
 */
export class PostgresAppTransactionBench {
  constructor(
    private readonly server: BenchPostgresServer,
    private readonly meter: PostgresCostMeter,
  ) {}

  async run(transactions: number): Promise<AppTransactionFigure> {
    const without = await this.window(transactions, false);
    const withEnqueue = await this.window(transactions, true);
    return { transactions, withEnqueue, without };
  }

  private async window(transactions: number, enqueue: boolean): Promise<PostgresWindowCost> {
    const { name, url } = await this.server.createDatabase('bench');
    const app = new Client({ connectionString: url });
    const backend = new PostgresBackend(
      ALIAS,
      { backend: PostgresBackend, url, queues: [QUEUE] },
      storeRules,
    );
    try {
      await app.connect();
      await app.query('SET synchronous_commit = on');
      await app.query('CREATE TABLE signups (id bigserial PRIMARY KEY, email text NOT NULL)');
      await backend.ping();
      const transaction = pgTransaction(app);
      const { cost } = await this.meter.measure(async () => {
        for (let i = 0; i < transactions; i++) {
          await app.query('BEGIN');
          await app.query('INSERT INTO signups (email) VALUES ($1)', [`user${i}@example.com`]);
          if (enqueue) {
            await backend.tasks.enqueueInTransaction!(transaction, [
              newRecord(ALIAS, { name: 'mail.welcome', args: [i] }),
            ]);
          }
          await app.query('COMMIT');
        }
      });
      return cost;
    } finally {
      await backend.close();
      await app.end();
      await this.server.dropDatabase(name);
    }
  }
}
