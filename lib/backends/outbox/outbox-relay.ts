import type { Logger } from '@nestjs/common';
import type { Client } from 'pg';

import { CorruptTaskDataError } from '../../core/errors/corrupt-task-data.error';
import { deserializeRecord } from '../../core/task-serializer';
import type { TaskRecord } from '../../core/task-record.interface';
import { withinMs } from '../../utils/sleep.util';
import type { OutboxDatabase } from './outbox-database';
import type { OutboxSettings } from './outbox-settings';
import type { OutboxStatements } from './outbox-statements';
import { OutboxRelayFencedError } from './outbox-relay-fenced.error';
import { outboxRelayFailed, outboxRowsParked } from './outbox.messages';

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
  /**
   * The fencing token of a relay that has just taken the lock: a generation
   * above every one taken before, by any process.
   */
  takeGeneration(): Promise<number>;
  /**
   * Moves the records in the name of the relay that took `generation`.
   *
   * @throws OutboxRelayFencedError, nothing stored, when a relay took a newer one since.
   */
  move(records: readonly TaskRecord[], generation: number): Promise<void>;
  /** Why the store can never take `record` as it is (its queue is not on the alias); null when it can. */
  unmovable(record: TaskRecord): string | null;
  /** The id holding the task moved under `id` (its own, or its key's holder's); null while not moved. */
  movedHolder(id: string): Promise<string | null>;
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
 * Each time it takes the lock, a relay takes a generation (a fencing
 * token, before its first read), and every move carries it: the store
 * refuses the move of a relay another has replaced since (its lock
 * connection lost, or its process paused between a read and the move, for
 * however long), so rows the newer relay moved and deleted are not stored
 * again once their marks expired. A relay so refused drops its lock
 * connection and tries for the lock again.
 * A row no move can take (its request unreadable, its queue not on the
 * alias) is set aside (`parked`, with why) instead of blocking the rows
 * behind it; the backlog counts it, and it stays until someone clears it.
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
        // A lost connection fails the call waiting on it, which the catch below reports.
        client = await this.database.connect();
        if (await this.lock(client)) {
          await this.relay(client);
          pauseMs = 0;
        }
      } catch (error) {
        if (error instanceof OutboxRelayFencedError) {
          // Replaced: back to trying for the lock at once, which the newer relay holds, if alive.
          pauseMs = 0;
          this.logger.warn(error.message);
        } else {
          pauseMs = Math.min(RETRY_MS, this.settings.pollIntervalMs);
          if (!this.stopping) {
            this.logger.warn(outboxRelayFailed(this.database.alias, String(error), pauseMs));
          }
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
    // Taken after the lock and before any read: a relay that took the lock earlier has a lower one.
    const generation = await this.mover.takeGeneration();
    await this.database.ready();
    client.on('notification', () => this.signal());
    await client.query(`LISTEN ${this.database.channel}`);
    while (!this.stopping) {
      this.woken = false;
      const moved = await this.pass(client, generation);
      if (moved < this.settings.batchSize) await this.pause(this.settings.pollIntervalMs);
    }
  }

  /** One batch, oldest first: moved, then deleted. How many rows it took. */
  private async pass(client: Client, generation: number): Promise<number> {
    const { alias } = this.database;
    const { rows } = await client.query<{ id: string; request: string }>(this.statements.oldest, [
      alias,
      this.settings.batchSize,
    ]);
    if (rows.length === 0) return 0;
    const movable: TaskRecord[] = [];
    const parked: { id: string; reason: string }[] = [];
    for (const row of rows) {
      const { record, reason } = this.read(row.id, row.request);
      if (record !== null) movable.push(record);
      else parked.push({ id: row.id, reason });
    }
    if (parked.length > 0) {
      await client.query(this.statements.park, [
        alias,
        parked.map((row) => row.id),
        parked.map((row) => row.reason),
      ]);
      this.logger.warn(outboxRowsParked(alias, parked));
    }
    await this.mover.move(movable, generation);
    await client.query(this.statements.delete, [alias, movable.map((record) => record.id)]);
    return rows.length;
  }

  /** The row's record, or why no move can ever take it. */
  private read(
    id: string,
    request: string,
  ): { record: TaskRecord; reason?: never } | { record: null; reason: string } {
    let record: TaskRecord;
    try {
      record = deserializeRecord(id, request);
    } catch (error) {
      if (error instanceof CorruptTaskDataError) return { record: null, reason: error.message };
      throw error;
    }
    const reason = this.mover.unmovable(record);
    return reason === null ? { record } : { record: null, reason };
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
