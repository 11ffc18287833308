import type { AcknowledgeOutcome, RetryOutcome } from '../../core/ports/lease-store.port';
import type { TaskRecord } from '../../core/task-record.interface';
import type { RedisAliasContext } from './redis-alias-context';
import { groupFinished } from './redis-finished-groups';
import type { RedisPoolHeartbeat } from './redis-pool-heartbeat';
import { type AcknowledgeGroup, storeSettings, StoreReply } from './redis-script-types';

/**
 * The store calls that settle attempts of one RedisBackend alias: finished
 * records stored (acknowledge), or sent back for their next attempt (retry), each only
 * while its lease is still held; with waitForReplicas, answered once the
 * replicas have it (a repeat after ReplicasBehindError changes nothing).
 * The acquire path stores finished records in its own script call, with
 * the groups and outcomes made here.
 *
 * @internal
 */
export class RedisAcknowledger {
  constructor(
    private readonly context: RedisAliasContext,
    private readonly pools: RedisPoolHeartbeat,
  ) {}

  async acknowledge(records: readonly TaskRecord[]): Promise<AcknowledgeOutcome[]> {
    if (records.length === 0) return [];
    const { groups, order } = this.finishedGroups(records);
    const { connection, replicas, scripts } = this.context;
    const stored = await connection.run(() =>
      replicas.confirmed(
        connection.client,
        () => `an acknowledgement of ${records.length} task(s)`,
        () =>
          scripts.acknowledge(
            groups,
            storeSettings(
              this.context.keys,
              this.context.settings.retention.longestMaxAgeMs,
              this.pools.hint,
            ),
          ),
      ),
    );
    return this.outcomes(records, order, stored);
  }

  async retry(records: readonly TaskRecord[]): Promise<RetryOutcome[]> {
    if (records.length === 0) return [];
    // Each runAfter was set on this process's clock: the wait left is read as the call goes.
    const { connection, replicas } = this.context;
    const sent = await connection.run(() =>
      replicas.confirmed(
        connection.client,
        () => `a retry of ${records.length} task(s)`,
        () => this.context.maintenance.retry(records, Date.now()),
      ),
    );
    return sent.map((reply): RetryOutcome => {
      if (reply === StoreReply.Stored) return 'retried';
      return reply === StoreReply.AlreadyStored ? 'already-stored' : 'stale';
    });
  }

  /** Finished records as the scripts take them (see groupFinished). */
  finishedGroups(records: readonly TaskRecord[]): {
    groups: AcknowledgeGroup[];
    order: number[];
  } {
    const { keys, codec, guard } = this.context;
    return groupFinished(records, keys, codec, (record) => guard.queueOf(record));
  }

  /** Store outcomes in the order of `records`, from the script's order across the groups. */
  outcomes(
    records: readonly TaskRecord[],
    order: readonly number[],
    stored: readonly StoreReply[],
  ): AcknowledgeOutcome[] {
    const outcomes = new Array<AcknowledgeOutcome>(records.length);
    order.forEach((index, k) => {
      if (stored[k] === StoreReply.Stored) {
        outcomes[index] = 'acknowledged';
        return;
      }
      if (stored[k] === StoreReply.AlreadyStored) {
        outcomes[index] = 'already-stored';
        return;
      }
      outcomes[index] = 'stale';
      this.context.logger.debug(
        `acknowledge of task ${records[index].id} was stale: it is no longer leased (reaped or recovered)`,
      );
    });
    return outcomes;
  }
}
