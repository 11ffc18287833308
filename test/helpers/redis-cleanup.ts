import type { Cluster, Redis } from 'ioredis';

import { RedisKeys } from '../../lib/backends/redis/redis-keys';

/**
 * Removes every key of one alias by SCAN MATCH on its prefix + UNLINK: never
 * FLUSHALL or KEYS *, so tests sharing a Redis cannot touch each other's data.
 * On a cluster every master is scanned (the alias lives on one, but which one
 * is Redis's business). `keyPrefix` is the backend's `prefix` option, when set.
 * Returns how many keys went.
 */
export async function removeAliasKeys(
  client: Redis | Cluster,
  alias: string,
  keyPrefix?: string,
): Promise<number> {
  const pattern = new RedisKeys(alias, keyPrefix).scanPattern;
  const nodes =
    'nodes' in client && typeof client.nodes === 'function'
      ? client.nodes('master')
      : [client as Redis];
  let removed = 0;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) removed += await node.unlink(...keys);
    } while (cursor !== '0');
  }
  return removed;
}

/** Every key of one alias (for assertions about the key layout); `keyPrefix` as removeAliasKeys's. */
export async function aliasKeys(
  client: Redis | Cluster,
  alias: string,
  keyPrefix?: string,
): Promise<string[]> {
  const pattern = new RedisKeys(alias, keyPrefix).scanPattern;
  const nodes =
    'nodes' in client && typeof client.nodes === 'function'
      ? client.nodes('master')
      : [client as Redis];
  const keys: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
  }
  return keys.sort();
}
