import type { TaskAlreadyExistsError } from '../../core/errors/task-already-exists.error';
import type { ThreadmillError } from '../../core/errors/threadmill.error';
import type { TaskRecord } from '../../core/task-record.interface';
import { serializeRecord } from '../../core/task-serializer';
import { delayUntil } from '../run-after';
import { checkout } from './postgres-checkout';
import type { PostgresConnection, PostgresTx } from './postgres-connection';
import type { PostgresEnqueueErrors } from './postgres-enqueue-errors';
import { isConnectionLoss, isRunAgain } from './postgres-errors';
import type { PostgresNotices } from './postgres-notices';
import { readyScore } from './postgres-rows';

/** How many times a lone call that lost a deadlock is run again before its error is thrown. */
const RUNS = 5;

/** A row of threadmill_enqueue's reply: a refused record and the task that holds its id. */
interface RefusedRow {
  n: number;
  data: string | null;
  progress: string | null;
}

/**
 * Where a call runs: `alone` is its own transaction (the feed lock taken
 * in it); `tx` is a step of one of the backend's transactions, which holds
 * the feed lock; `app` a step of the app's transaction, which takes none
 * (its live events go whether or not the feed is listened to), its
 * ingress counted in rows of its own (threadmill_ingress_pending).
 */
export type EnqueueCallPlace = 'alone' | 'tx' | 'app';

/** When an enqueue was called: on this process's monotonic clock, and on its wall clock. */
export interface EnqueueCall {
  readonly mono: number;
  readonly wallMs: number;
}

/** The records of one call, and when the enqueue was called. */
export interface EnqueueCallInput {
  records: readonly TaskRecord[];
  call: EnqueueCall;
  /** One refusal stores none. */
  allOrNone: boolean;
}

/**
 * Stores new task rows through threadmill_enqueue (postgres-enqueue-function.ts),
 * one round trip for a whole batch: inserted, refused where the id is
 * taken, counted as ingress and announced. Per record the refusal of a
 * taken id, or null when it was stored.
 *
 * @internal
 */
export class PostgresEnqueueCall {
  private readonly call: string;

  constructor(
    private readonly alias: string,
    private readonly connection: PostgresConnection,
    private readonly notices: PostgresNotices,
    private readonly errors: PostgresEnqueueErrors,
  ) {
    const params = Array.from({ length: 15 }, (_, i) => `$${i + 1}`).join(', ');
    this.call = `SELECT * FROM ${connection.schema}.threadmill_enqueue(${params})`;
  }

  /** A call of its own transaction; a connection lost under it leaves the outcome unknown. */
  async alone(
    input: EnqueueCallInput,
    outcomeUnknown: (cause: unknown) => ThreadmillError,
  ): Promise<(TaskAlreadyExistsError | null)[]> {
    this.connection.assertOpen();
    for (let run = 1; ; run++) {
      try {
        await this.connection.ready;
        // Valued once the server's clock is measured (ready).
        const values = this.values(input, 'alone');
        const refusals = this.refusals(input, await this.once(values, outcomeUnknown));
        this.notices.wake(this.readyQueues(input, refusals));
        return refusals;
      } catch (error) {
        // A statement that lost a deadlock was rolled back whole: running it again is safe.
        if (run < RUNS && isRunAgain(error)) continue;
        throw this.connection.failure(error);
      }
    }
  }

  /** A step of `tx` (`place` tx: the backend's, app: the app's). */
  async in(
    tx: PostgresTx,
    input: EnqueueCallInput,
    place: 'tx' | 'app',
  ): Promise<(TaskAlreadyExistsError | null)[]> {
    const refusals = this.refusals(
      input,
      await tx.query<RefusedRow>(this.call, this.values(input, place)),
    );
    const queues = this.readyQueues(input, refusals);
    tx.afterCommit(() => this.notices.wake(queues));
    return refusals;
  }

  private async once(
    values: unknown[],
    outcomeUnknown: (cause: unknown) => ThreadmillError,
  ): Promise<RefusedRow[]> {
    const { client, lost, release } = await checkout(this.connection.pool);
    let broken: Error | undefined;
    try {
      return (await client.query<RefusedRow>(this.call, values)).rows;
    } catch (error) {
      if (isConnectionLoss(error) || lost() !== undefined) {
        broken = lost() ?? (error as Error);
        // The statement went out: the server may have committed it before the connection went.
        throw outcomeUnknown(error);
      }
      throw error;
    } finally {
      release(broken);
    }
  }

  private values(input: EnqueueCallInput, place: EnqueueCallPlace): unknown[] {
    const { records, call } = input;
    const now = this.connection.clock.at(call.mono);
    const callerNow = call.wallMs;
    // Each runAfter was set on the enqueuer's clock: its wait left at the call, read on that
    // clock (`callerNow`), is added to the server's time of the call (`now`).
    const runAt = records.map((record) => {
      const wait = delayUntil(record.task.runAfter, callerNow);
      return wait > 0 ? now + wait : null;
    });
    return [
      this.alias,
      place === 'alone' ? this.connection.feedLockKey : null,
      place !== 'app',
      input.allOrNone,
      place === 'app',
      records.map((record) => record.id),
      records.map((record) => record.task.queue),
      records.map((record) => record.task.name),
      records.map(readyScore),
      runAt,
      records.map((record) => record.workerIds.length),
      JSON.stringify(records.map(serializeRecord)),
      now,
      this.notices.channel('live'),
      this.notices.channel('work'),
    ];
  }

  private refusals(
    input: EnqueueCallInput,
    rows: readonly RefusedRow[],
  ): (TaskAlreadyExistsError | null)[] {
    const refusals = new Array<TaskAlreadyExistsError | null>(input.records.length).fill(null);
    for (const { n, data, progress } of rows) {
      // A holder gone by the time it was read (its result expired at that moment) refuses nothing.
      if (data !== null) {
        refusals[n - 1] = this.errors.alreadyExists({
          id: input.records[n - 1].id,
          data,
          progress,
        });
      }
    }
    return refusals;
  }

  /** The queues that got a ready task: this process's idle consumers look again. */
  private readyQueues(
    input: EnqueueCallInput,
    refusals: readonly (TaskAlreadyExistsError | null)[],
  ): string[] {
    const none = input.allOrNone && refusals.some(Boolean);
    const stored = (i: number): boolean => !none && refusals[i] === null;
    const queues = new Set<string>();
    input.records.forEach((record, i) => {
      if (stored(i) && delayUntil(record.task.runAfter, input.call.wallMs) <= 0) {
        queues.add(record.task.queue);
      }
    });
    return [...queues];
  }
}
