import type { Logger } from '@nestjs/common';
import type { Client } from 'pg';

import { deserializeRecord } from '../../core/task-serializer';
import type { TaskRecord } from '../../core/task-record.interface';
import { withinMs } from '../../utils/sleep.util';
import type { OutboxDatabase } from './outbox-database';
import type { OutboxSettings } from './outbox-settings';
import type { OutboxStatements } from './outbox-statements';
import { outboxRelayFailed } from './outbox.messages';

/** Longest wait before a failed relay tries again. */
const RETRY_MS = 1000;

/**
 * Puts moved tasks into the alias's store, refusing any moved before
 * (within the mark window) and any whose id is stored: those are done too.
 * Throws when the store did not take the call; the rows then stay.
 *
 * @internal
 */
export interface OutboxMover {
  move(records: readonly TaskRecord[]): Promise<void>;
}

/**
 * Moves committed outbox rows of one alias into its store, one process at
 * a time: the holder of a session advisory lock on a connection of its
 * own, which Postgres releases when that connection ends, the process
 * killed included. The holder LISTENs on the outbox channel (every write
 * notifies at its commit) and reads again after each full batch, or after
 * the safety poll when nothing came; the others try the lock at that poll.
 * A row is deleted only after its move is known: a relay that dies between
 * the two leaves it, and the next move of it is refused by the store
 * (OutboxMover) and the row deleted. Rows go in the order they were
 * written among those committed when read; one that commits late is found
 * by the next read, as every read takes the oldest rows still there.
 *
 * @internal
 */
export class OutboxRelay {
  private stopping = false;
  private running: Promise<void> | null = null;
  /** Set by a notification or a stop; a wait ends at once while it is. */
  private woken = false;
  private wake: (() => void) | null = null;
  private holder = false;

  constructor(
    private readonly database: OutboxDatabase,
    private readonly statements: OutboxStatements,
    private readonly settings: OutboxSettings,
    private readonly mover: OutboxMover,
    private readonly logger: Logger,
  ) {}

  /** Whether this process relays now (holds the lock). */
  get holding(): boolean {
    return this.holder;
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Stops relaying and ends its connection, which hands the lock to another process. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.signal();
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let client: Client | null = null;
      let pauseMs = this.settings.pollIntervalMs;
      try {
        client = await this.database.connect();
        // A lost connection also fails the call waiting on it, which the catch below reports.
        client.on('error', (error) =>
          this.logger.debug(
            `outbox relay connection of "${this.database.alias}": ${error.message}`,
          ),
        );
        if (await this.lock(client)) {
          await this.relay(client);
          pauseMs = 0;
        }
      } catch (error) {
        pauseMs = Math.min(RETRY_MS, this.settings.pollIntervalMs);
        if (!this.stopping) {
          this.logger.warn(outboxRelayFailed(this.database.alias, String(error), pauseMs));
        }
      } finally {
        this.holder = false;
        // Ending a connection that is gone already has nothing left to report.
        await client?.end().catch((error: unknown) => this.logger.debug(String(error)));
      }
      if (pauseMs > 0) await this.pause(pauseMs);
    }
  }

  private async lock(client: Client): Promise<boolean> {
    const { rows } = await client.query<{ held: boolean }>(
      'SELECT pg_try_advisory_lock($1::bigint) AS held',
      [this.database.relayLockKey],
    );
    return rows[0]?.held === true;
  }

  /** Holds the lock: moves until stopped or a call fails. */
  private async relay(client: Client): Promise<void> {
    this.holder = true;
    await this.database.ready();
    client.on('notification', () => this.signal());
    await client.query(`LISTEN ${this.database.channel}`);
    while (!this.stopping) {
      this.woken = false;
      const moved = await this.pass(client);
      if (moved < this.settings.batchSize) await this.pause(this.settings.pollIntervalMs);
    }
  }

  /** One batch, oldest first: moved, then deleted. How many rows it took. */
  private async pass(client: Client): Promise<number> {
    const { alias } = this.database;
    const { rows } = await client.query<{ id: string; request: string }>(this.statements.oldest, [
      alias,
      this.settings.batchSize,
    ]);
    if (rows.length === 0) return 0;
    await this.mover.move(rows.map((row) => deserializeRecord(row.id, row.request)));
    await client.query(this.statements.delete, [alias, rows.map((row) => row.id)]);
    return rows.length;
  }

  /** Until a notification, a stop, or `ms`. */
  private pause(ms: number): Promise<void> {
    if (this.woken || this.stopping) return Promise.resolve();
    return withinMs(new Promise<void>((resolve) => (this.wake = resolve)), ms).finally(
      () => (this.wake = null),
    );
  }

  private signal(): void {
    this.woken = true;
    this.wake?.();
  }
}
