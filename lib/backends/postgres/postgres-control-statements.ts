/** A cancel request as a pool's poll reads it. */
export interface CancelRequestRow {
  id: string;
  requested_at: number;
  lease: string;
}

/**
 * The statements of cancelling and of final tasks handled by hand, for one
 * schema: a task looked up (locked) in whatever state it is, a running one's
 * record marked, the cancel requests addressed to pools, and a result row
 * locked and deleted.
 *
 * @internal
 */
export class PostgresControlStatements {
  readonly selectTask: string;
  readonly markRequested: string;
  readonly insertRequest: string;
  readonly selectRequests: string;
  readonly deleteRequests: string;
  readonly selectResultLocked: string;
  readonly deleteResult: string;
  readonly insertReady: string;

  constructor(s: string) {
    this.selectTask = `
      SELECT seq, id, queue, data, progress, state, pool FROM ${s}.threadmill_tasks
      WHERE alias = $1 AND id = $2 FOR UPDATE`;
    this.markRequested = `UPDATE ${s}.threadmill_tasks SET data = $3 WHERE alias = $1 AND id = $2`;
    // The first request for a lease keeps its time; a request for a later lease replaces it.
    this.insertRequest = `
      INSERT INTO ${s}.threadmill_cancels (alias, pool, id, requested_at, lease)
      VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (alias, pool, id) DO UPDATE
        SET requested_at = excluded.requested_at, lease = excluded.lease
        WHERE threadmill_cancels.lease <> excluded.lease`;
    this.selectRequests = `
      SELECT id, requested_at, lease FROM ${s}.threadmill_cancels
      WHERE alias = $1 AND pool = $2 ORDER BY requested_at, id LIMIT 1000`;
    this.deleteRequests = `
      DELETE FROM ${s}.threadmill_cancels c
      USING unnest($3::text[], $4::text[]) AS r(id, lease)
      WHERE c.alias = $1 AND c.pool = $2 AND c.id = r.id AND c.lease = r.lease`;
    this.selectResultLocked = `
      SELECT id, data FROM ${s}.threadmill_results
      WHERE alias = $1 AND id = $2 AND expires_at > $3 FOR UPDATE`;
    this.deleteResult = `DELETE FROM ${s}.threadmill_results WHERE alias = $1 AND id = $2`;
    this.insertReady = `
      INSERT INTO ${s}.threadmill_tasks (alias, id, queue, name, state, score, attempts, data)
      VALUES ($1, $2, $3, $4, 'ready', $5, $6, $7)`;
  }
}
