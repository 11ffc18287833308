import type { Logger } from '@nestjs/common';
import type { StoreRules } from '../../core/ports/store-rules.port';

import type { RedisBackendSettings } from './redis-backend-config.parser';
import type { RedisCallGuard } from './redis-call-guard';
import type { RedisConnection } from './redis-connection';
import type { RedisKeys } from './redis-keys';
import type { RedisMaintenance } from './redis-maintenance';
import type { RedisRecordCodec } from './redis-record.codec';
import type { RedisReplicaWait } from './redis-replica-wait';
import type { RedisScripts } from './redis-scripts';

/**
 * What every part of one RedisBackend alias works with, made once by the
 * backend: its settings, key names, record codec, connections, scripts,
 * maintenance store, the open-and-queue checks, the replicas' confirmation
 * of task writes, and its logger.
 *
 * @internal
 */
export interface RedisAliasContext {
  readonly alias: string;
  readonly settings: RedisBackendSettings;
  readonly keys: RedisKeys;
  readonly codec: RedisRecordCodec;
  readonly connection: RedisConnection;
  readonly scripts: RedisScripts;
  readonly maintenance: RedisMaintenance;
  readonly guard: RedisCallGuard;
  /** WAIT after task writes, when waitForReplicas is set. */
  readonly replicas: RedisReplicaWait;
  readonly logger: Logger;
  /** The lifecycle's rules, applied to what the scripts return. */
  readonly rules: StoreRules;
}
