import type { BackendConfig } from '../../core/backend-config.interface';

/**
 * Marks a config whose url is the local fallback of redisBackendConfigFromEnv
 * because no REDIS_* variable was set: the backend logs so when it is made,
 * which is at the app's start, once Nest's logger is set up (the factory runs
 * when the module file is imported, before that, and its stdout may be a
 * command's result).
 *
 * @internal
 */
export const LOCAL_REDIS_FALLBACK = Symbol('threadmill:localRedisFallback');

/** Whether a config's url is the local fallback (see LOCAL_REDIS_FALLBACK). @internal */
export function usesLocalRedisFallback(config: BackendConfig): boolean {
  const marked = config as BackendConfig & { [LOCAL_REDIS_FALLBACK]?: true };
  return marked[LOCAL_REDIS_FALLBACK] === true;
}
