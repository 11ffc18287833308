import { sleep } from '../../utils/sleep.util';
import type { PostgresConnection } from './postgres-connection';
import { sessionName } from './postgres-names';

/** The first pause between two looks at the sessions left; each next one doubles, up to the last. */
const FIRST_LOOK_MS = 5;
const LAST_LOOK_MS = 100;

/**
 * Ends the sessions of process $1's name (sessionName) on this database,
 * from the address this session comes from, and counts them. Each session
 * found is sent pg_terminate_backend (again, while it lingers); `ours` is
 * false, and nothing ended, when this session is not named $2, this
 * process's name: the url or PGAPPNAME names the sessions, so a name does
 * not tell whose a session is. The address keeps another machine's process
 * of the same pid (another container's) out.
 */
const END_SESSIONS = `
  WITH own AS (SELECT current_setting('application_name') = $2 AS ours),
  ended AS (
    SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a, own
    WHERE own.ours AND a.datname = current_database() AND a.application_name = $1
      AND a.pid <> pg_backend_pid() AND a.client_addr IS NOT DISTINCT FROM inet_client_addr())
  SELECT (SELECT ours FROM own) AS ours, (SELECT count(*) FROM ended)::int AS left`;

/**
 * The sessions a dead process left on the server. A statement of a killed
 * process runs on until it replies (only then does the server find the
 * connection closed), so a lease it had under way may commit after the
 * death; ending its sessions rolls back what has not committed, and once
 * none is left nothing of it can commit any more.
 *
 * @internal
 */
export class PostgresSessions {
  constructor(private readonly connection: PostgresConnection) {}

  /**
   * Ends every session of the dead process `pid` of this machine; true once
   * none is left, false when this process's sessions do not carry their
   * own name (so neither do the dead one's), `pid` is this very process, or
   * some are still there after `waitMs`.
   */
  async endSessionsOf(pid: number, waitMs: number): Promise<boolean> {
    if (pid === process.pid) return false;
    const until = Date.now() + waitMs;
    const args = [sessionName(pid), sessionName(process.pid)];
    for (let pause = FIRST_LOOK_MS; ; pause = Math.min(pause * 2, LAST_LOOK_MS)) {
      const [row] = await this.connection.query<{ ours: boolean; left: number }>(
        END_SESSIONS,
        args,
      );
      if (!row?.ours) return false;
      if (row.left === 0) return true;
      if (Date.now() + pause > until) return false;
      await sleep(pause);
    }
  }
}
