import type { Logger } from '@nestjs/common';

import type { OutboxBacklog } from '../../core/outbox-backlog';
import type { TaskRecord } from '../../core/task-record.interface';
import type { TaskTransaction } from '../../core/task-transaction';
import { OutboxMoveTimeoutError } from '../../core/errors/outbox-move-timeout.error';
import { sleep } from '../../utils/sleep.util';
import { OutboxDatabase } from './outbox-database';
import { outboxMoveTimeout } from './outbox.messages';
import { OutboxRelay, type OutboxMover } from './outbox-relay';
import type { OutboxSettings } from './outbox-settings';
import { OutboxStatements } from './outbox-statements';
import { OutboxWriter } from './outbox-writer';

/** Longest pause between two reads of a moved mark while a handle waits for its move. */
const MAX_MOVE_POLL_MS = 250;

/**
 * The outbox of one alias whose store is not the app's database: the
 * writes in the app's transaction (OutboxWriter) and, in a process that
 * takes part, the relay that moves them into the store (OutboxRelay).
 *
 * @internal
 */
export class TaskOutbox {
  private readonly database: OutboxDatabase;
  private readonly statements: OutboxStatements;
  private readonly writer: OutboxWriter;
  private readonly relay: OutboxRelay | null;
  private closed: Promise<void> | null = null;

  constructor(
    alias: string,
    settings: OutboxSettings,
    private readonly mover: OutboxMover,
    logger: Logger,
  ) {
    this.database = new OutboxDatabase(alias, settings, logger);
    this.statements = new OutboxStatements(settings.schema);
    this.writer = new OutboxWriter(this.database, this.statements);
    this.relay = settings.relay
      ? new OutboxRelay(this.database, this.statements, settings, mover, logger)
      : null;
    this.relay?.start();
  }

  /** Whether this process relays now. */
  get relaying(): boolean {
    return this.relay?.holding ?? false;
  }

  /** Writes the records in the app's transaction (OutboxWriter.write). */
  write(transaction: TaskTransaction, records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    return this.writer.write(transaction, records);
  }

  /**
   * The id holding the task written under `id`, once the relay moved it:
   * read from its moved mark, again and again with a growing pause (the
   * move happens in whichever process relays, so there is no event here to
   * wait on), up to `timeoutMs`.
   *
   * @throws OutboxMoveTimeoutError when it was not moved in time.
   */
  async awaitMoved(id: string, timeoutMs: number): Promise<string> {
    const started = Date.now();
    let pauseMs = 10;
    for (;;) {
      const holder = await this.mover.movedHolder(id);
      if (holder !== null) return holder;
      const left = timeoutMs - (Date.now() - started);
      if (left <= 0) {
        throw new OutboxMoveTimeoutError(
          outboxMoveTimeout(this.database.alias, id, timeoutMs),
          id,
          timeoutMs,
        );
      }
      await sleep(Math.min(pauseMs, left));
      pauseMs = Math.min(pauseMs * 2, MAX_MOVE_POLL_MS);
    }
  }

  /** What waits now, read on the server's clock. */
  async backlog(): Promise<OutboxBacklog> {
    await this.database.ready();
    const rows = await this.database.withClient(
      async (client) =>
        (
          await client.query<{ count: number; age: string | null; parked: number }>(
            this.statements.backlog,
            [this.database.alias],
          )
        ).rows,
    );
    const age = rows[0]?.age;
    return {
      waiting: rows[0]?.count ?? 0,
      parked: rows[0]?.parked ?? 0,
      oldestAgeMs: age === null || age === undefined ? null : Math.max(0, Number(age)),
    };
  }

  /** Stops the relay and ends the connections; a second call waits for the first. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      await this.relay?.stop();
      await this.database.close();
    })();
    return this.closed;
  }
}
