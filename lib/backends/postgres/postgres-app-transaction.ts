import type { LoggerService } from '@nestjs/common';
import type { QueryResultRow } from 'pg';
import type { TaskTransaction } from '../../core/task-transaction';
import type { NoticeCondition, PostgresConnection, PostgresTx } from './postgres-connection';
import { noticeFilter } from './postgres-notice-filter';

/** Undoes one call's writes on a refusal, and leaves the app's transaction usable. */
const SAVEPOINT = 'threadmill_enqueue';

/**
 * Runs a part's writes inside the app's open transaction (TaskTransaction)
 * instead of one of the pool's. The notifications go last, in the
 * transaction, so Postgres delivers them at its commit and never for a
 * rollback; this process's idle consumers learn of new work from them too,
 * since nothing tells when the app commits. The feed lock the pool's
 * transactions share is not taken: held for as long as the app's
 * transaction lasts, it would stall every feed's subscribe, and every
 * writer queued behind that. So a feed's notifications are sent whether or
 * not it has a listener, and none opened before the commit misses one. A
 * call that writes several records does so under a savepoint, so a refusal
 * (an id or a key taken) undoes only its own writes; a single record is
 * refused before it writes anything. Nothing is run again on a deadlock:
 * the transaction is the app's, and so is the decision.
 *
 * @internal
 */
export class PostgresAppTransaction {
  private readonly notify: string;

  constructor(
    private readonly connection: PostgresConnection,
    private readonly logger: LoggerService,
  ) {
    // A count, not pg_notify's void column, which some clients cannot read (Prisma).
    this.notify = `SELECT count(*)::int AS sent FROM (SELECT pg_notify(n.c, n.p)
      FROM unnest($1::text[], $2::text[], $3::text[]) AS n(c, p, f)
      ${noticeFilter(connection.schema, '$4', '$5')}) AS sent`;
  }

  /** `work`'s writes in `transaction`; `several` puts them under a savepoint. */
  async run<T>(
    alias: string,
    transaction: TaskTransaction,
    several: boolean,
    work: (tx: PostgresTx) => Promise<T>,
  ): Promise<T> {
    this.connection.assertOpen();
    try {
      await this.connection.ready;
    } catch (error) {
      throw this.connection.failure(error);
    }
    const notices: [channel: string, payload: string, condition: NoticeCondition][] = [];
    const tx: PostgresTx = {
      query: async <R extends QueryResultRow>(text: string, values: unknown[] = []) =>
        (await transaction.query(text, values)) as R[],
      // A feed's notice goes unconditionally: its listeners are not locked out until the commit.
      notify: (channel, payload, condition = '') =>
        notices.push([channel, payload, condition === 'limited' ? condition : '']),
      // The app's commit is unseen here: the notifications sent with it wake this process too.
      afterCommit: () => undefined,
    };
    let result: T;
    try {
      if (several) await tx.query(`SAVEPOINT ${SAVEPOINT}`);
    } catch (error) {
      throw this.connection.failure(error);
    }
    try {
      result = await work(tx);
      if (notices.length > 0) {
        await tx.query(this.notify, [
          notices.map((notice) => notice[0]),
          notices.map((notice) => notice[1]),
          notices.map((notice) => notice[2]),
          alias,
          this.connection.clock.now(),
        ]);
      }
    } catch (error) {
      if (several) await this.undo(tx, error);
      throw this.connection.failure(error);
    }
    try {
      if (several) await tx.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
    } catch (error) {
      throw this.connection.failure(error);
    }
    return result;
  }

  /** Back to the savepoint; when that fails too, the app's transaction is aborted and says so. */
  private async undo(tx: PostgresTx, error: unknown): Promise<void> {
    try {
      await tx.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    } catch (undoError) {
      // The caller gets the first error; this one only says the transaction is lost.
      this.logger.warn(
        `An enqueue in the app's transaction failed (${String(error)}) and could not roll back ` +
          `its own writes (${String(undoError)}): roll that transaction back.`,
      );
    }
  }
}
