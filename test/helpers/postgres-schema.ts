import { randomUUID } from 'node:crypto';

import { postgresQuery } from './postgres-query';
import { testPostgresUrl } from './test-postgres-url';

/**
 * A schema one test made for itself. Tests sharing a Postgres isolate
 * themselves by schema, as they do by alias on Redis: only the handle that
 * created a schema drops it, so no test drops what it did not create.
 */
export interface TestSchema {
  /** `t_` and 32 hex digits: unique, and an identifier that needs no quotes. */
  readonly name: string;
  /** The Postgres it lives on. */
  readonly url: string;
  /** Drops it with everything in it (CASCADE); a second call does nothing. */
  drop(): Promise<void>;
}

/**
 * Creates a schema of a new unique name on `url` (the run's Postgres unless
 * given). `CREATE SCHEMA` without `IF NOT EXISTS`: a name already taken fails
 * instead of handing this test a schema someone else owns.
 */
export async function createTestSchema(url: string = testPostgresUrl()): Promise<TestSchema> {
  const name = `t_${randomUUID().replaceAll('-', '')}`;
  await postgresQuery(url, `CREATE SCHEMA "${name}"`);
  let dropped = false;
  return {
    name,
    url,
    async drop() {
      if (dropped) return;
      await postgresQuery(url, `DROP SCHEMA "${name}" CASCADE`);
      dropped = true;
    },
  };
}
