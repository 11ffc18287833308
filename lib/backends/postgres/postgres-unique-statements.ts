/** A unique key's row. */
export interface KeyHoldRow {
  key: string;
  holder: string;
  window_end: number | null;
}

/** A holder's row, live (`state` set) or a result (`state` null). */
export interface HolderRow {
  id: string;
  state: string | null;
  data: string;
}

/**
 * The statements of unique keys (threadmill_unique_keys) for one schema:
 * keys locked for the enqueue's transaction, their holds and holders read
 * (a live holder locked), a key taken, a debounced task replaced, and holds
 * that no longer hold forgotten.
 *
 * @internal
 */
export class PostgresUniqueStatements {
  /** A count, not the locks' void column, which some clients of an app's transaction cannot read. */
  readonly lockKeys = `SELECT count(*)::int AS locked
    FROM (SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) AS k) AS l`;
  readonly selectHolds: string;
  readonly selectLiveHolders: string;
  readonly selectResultHolders: string;
  readonly takeKey: string;
  readonly replaceWaiting: string;
  readonly releaseKey: string;
  readonly selectFree: string;
  readonly deleteFree: string;

  constructor(s: string) {
    this.selectHolds = `
      SELECT key, holder, window_end FROM ${s}.threadmill_unique_keys
      WHERE alias = $1 AND key = ANY($2::text[])`;
    this.selectLiveHolders = `
      SELECT id, state, data FROM ${s}.threadmill_tasks
      WHERE alias = $1 AND id = ANY($2::text[]) FOR UPDATE`;
    this.selectResultHolders = `
      SELECT id, NULL AS state, data FROM ${s}.threadmill_results
      WHERE alias = $1 AND id = ANY($2::text[]) AND expires_at > $3`;
    this.takeKey = `
      INSERT INTO ${s}.threadmill_unique_keys (alias, key, holder, mode, window_end)
      VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (alias, key) DO UPDATE SET
        holder = excluded.holder, mode = excluded.mode, window_end = excluded.window_end`;
    this.replaceWaiting = `
      UPDATE ${s}.threadmill_tasks
      SET state = $3, score = $4, run_at = $5, name = $6, attempts = $7, data = $8
      WHERE alias = $1 AND id = $2 AND state IN ('ready', 'deferred')`;
    this.releaseKey = `
      DELETE FROM ${s}.threadmill_unique_keys WHERE alias = $1 AND key = $2 AND holder = $3`;
    // A key holds while its window lasts or its holder is a live task; a row past both goes.
    const free = `(u.window_end IS NULL OR u.window_end <= $2)
      AND NOT EXISTS (SELECT 1 FROM ${s}.threadmill_tasks t WHERE t.alias = u.alias AND t.id = u.holder)`;
    this.selectFree = `
      SELECT key FROM ${s}.threadmill_unique_keys u WHERE u.alias = $1 AND ${free}
      ORDER BY key LIMIT $3`;
    this.deleteFree = `
      DELETE FROM ${s}.threadmill_unique_keys u
      WHERE u.alias = $1 AND u.key = ANY($3::text[]) AND ${free}`;
  }
}
