import type { QueueConfig } from './queue-limits';
import type { TaskBackend } from './task-backend.interface';
import type { StoreRules } from './ports/store-rules.port';

/**
 * How one backend alias is configured in `ThreadmillModule.forRoot({ backends })`.
 * `options` is specific to the backend class, which validates it and throws
 * `InvalidBackendConfigError` naming the alias and the option.
 */
export interface BackendConfig<Options extends object = Record<string, unknown>> {
  /** The backend class, e.g. `RedisBackend` or `MemoryBackend`. */
  backend: BackendConstructor;
  /** Connection string, for backends that connect somewhere. */
  url?: string;
  /**
   * Queues this alias serves, each a name or a name with its limits
   * (`{ name, concurrency?, rateLimit? }`). Default: `['default']`.
   */
  queues?: (string | QueueConfig)[];
  options?: Options;
}

/**
 * Every backend class is constructed the same way, so the module can build
 * any of them: its alias, its options, and the lifecycle's rules it applies
 * (`storeRules`).
 */
export type BackendConstructor = new (
  alias: string,
  config: BackendConfig,
  rules: StoreRules,
) => TaskBackend;
