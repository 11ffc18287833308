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
 */
export async function checkout(pool: Pool): Promise<CheckedOut> {
  const client = await pool.connect();
  let lostWith: Error | undefined;
  const heard = (error: Error): void => {
    lostWith ??= error;
  };
  client.on('error', heard);
  return {
    client,
    lost: () => lostWith,
    release: (error) => {
      client.removeListener('error', heard);
      client.release(error ?? lostWith);
    },
  };
}
