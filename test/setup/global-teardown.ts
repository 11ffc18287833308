import type { PostgresServerHandle } from '../helpers/postgres-server';
import type { RedisServerHandle } from '../helpers/redis-server';

/** The private servers global-setup started, kept on jest's main process's globalThis. */
export interface RunServers {
  __threadmillRedis?: RedisServerHandle;
  __threadmillPostgres?: PostgresServerHandle;
}

/**
 * What steps run side by side failed with: nothing, the one error as it was,
 * or one error that quotes them all (so none is lost).
 */
export function failureOf(results: readonly PromiseSettledResult<unknown>[]): Error | undefined {
  const failures = results.flatMap((result) =>
    result.status === 'rejected'
      ? [result.reason instanceof Error ? result.reason : new Error(String(result.reason))]
      : [],
  );
  if (failures.length <= 1) return failures[0];
  return new Error(failures.map((failure, i) => `(${i + 1}) ${failure.stack}`).join('\n'));
}

/** Stops the private Redis and removes the private Postgres, each even if the other fails. */
export default async function globalTeardown(): Promise<void> {
  const run = globalThis as RunServers;
  const { __threadmillRedis: redis, __threadmillPostgres: postgres } = run;
  delete run.__threadmillRedis;
  delete run.__threadmillPostgres;
  const failure = failureOf(await Promise.allSettled([redis?.stop(), postgres?.remove()]));
  if (failure) throw failure;
}
