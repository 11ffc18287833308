import type { RedisAliasContext } from './redis-alias-context';
import { RedisControlScripts } from './redis-control-scripts';

/**
 * The roles of one RedisBackend alias: one expiring key per role names its
 * holder (claimRole-1.lua), so one process among many does a job that must
 * be done once, and another takes it over when that one stops claiming.
 *
 * @internal
 */
export class RedisRoles {
  private readonly scripts: RedisControlScripts;

  constructor(private readonly context: RedisAliasContext) {
    this.scripts = new RedisControlScripts(context.connection.client);
  }

  async claim(role: string, holder: string, ttlMs: number): Promise<boolean> {
    const { connection, keys } = this.context;
    return connection.run(() =>
      this.scripts.claimRole(keys.role(role), holder, Math.max(1, Math.ceil(ttlMs))),
    );
  }
}
