import type { Pool, PoolClient } from 'pg';

/** A connection of the pool, whether it was lost while held, and how to give it back. */
export interface CheckedOut {
  client: PoolClient;
  lost: () => Error | undefined;
  release: (error?: Error) => void;
}

/**
 * A connection of `pool`, held until `release`. A connection that fails
 * between two statements emits 'error' with no query to hand it to, and
 * pg's pool listens only to idle ones: unheard, that event would end the
 * process. Heard here, it is `lost()`, and the connection is discarded.
 * The listener goes on in pool.connect's callback, which pg calls as it
 * hands the connection over: a new connection's last reply to its connect
 * can share a read with the server's next message (a FATAL when it is
 * terminated at once), which pg handles before any awaited promise resumes.
 */
export function checkout(pool: Pool): Promise<CheckedOut> {
  return new Promise((resolve, reject) => {
    pool.connect((error, client) => {
      if (error || !client) {
        reject(error ?? new Error('pg gave neither a connection nor an error'));
        return;
      }
      let lostWith: Error | undefined;
      const heard = (lostError: Error): void => {
        lostWith ??= lostError;
      };
      client.on('error', heard);
      resolve({
        client,
        lost: () => lostWith,
        release: (releaseError) => {
          client.removeListener('error', heard);
          client.release(releaseError ?? lostWith);
        },
      });
    });
  });
}
