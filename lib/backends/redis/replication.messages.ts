/**
 * What is said of writes a store's replicas have not confirmed (the Redis
 * backend's waitForReplicas) and of the server a connection reached through
 * Sentinel. Each names the backend, what was written and what to do.
 */
import { shown } from '../../core/shown';

export const replicasBehind = (
  alias: string,
  target: string,
  what: string,
  confirmed: number,
  required: number,
  timeoutMs: number,
): string =>
  `Threadmill backend ${shown(alias)}: ${what} was applied on Redis at ${target}, but only ` +
  `${confirmed} of the ${required} replica(s) waitForReplicas asks for confirmed it within ` +
  `${timeoutMs} ms (WAIT), so a failover now could lose it. Sent again once the replicas catch ` +
  `up, the same call finds what it stored. If this lasts, check the replicas (INFO replication ` +
  `on the primary: are they connected, is their offset moving?) or lower waitForReplicas.count.`;

export const replicasLostConnection = (): string =>
  `the connection was made again between the write and its WAIT, so the replicas could not be ` +
  `asked about it`;

export const enqueueNotReplicated = (
  alias: string,
  ids: readonly string[],
  confirmed: number,
  required: number,
  timeoutMs: number,
): string =>
  `Threadmill backend ${shown(alias)}: an enqueue of ${ids.length} task(s) ` +
  `(${ids.length === 1 ? ids[0] : `${ids[0]}, ...`}) reached the Redis primary, but only ` +
  `${confirmed} of the ${required} replica(s) waitForReplicas asks for confirmed it within ` +
  `${timeoutMs} ms, so a failover could still lose them (all or none). Enqueue again with the ` +
  `same id (using({ id })) once the replicas catch up: a stored task is refused with ` +
  `TaskAlreadyExistsError, a lost one is stored.`;

export const sentinelPrimaryMoved = (
  alias: string,
  role: string,
  target: string,
  before: string,
): string =>
  `Threadmill backend ${shown(alias)}: the ${role} connection now reaches ${target}; it was at ` +
  `${before}. Sentinel promoted another server: what the old primary acknowledged but had not ` +
  `yet sent to its replicas is gone (waitForReplicas makes every task write wait for them).`;
