import type { BackendConstructor, BackendConfig } from '../../lib/core/backend-config.interface';
import type { StoreRules } from '../../lib/core/ports/store-rules.port';
import type { TaskBackend } from '../../lib/core/task-backend.interface';

type Call = (...args: unknown[]) => Promise<unknown>;
type Flat = Record<string, Call> & { alias: string; queues: readonly string[] };

/** Each part's methods the benchmarks call, by the flat name an older build gave them. */
const FLAT_NAMES: Record<string, Record<string, string>> = {
  tasks: { enqueue: 'enqueue', enqueueMany: 'enqueueMany', getResult: 'getResult' },
  leases: {
    acquire: 'acquire',
    acknowledge: 'acknowledge',
    acknowledgeAndAcquire: 'acknowledgeAndAcquire',
  },
  control: { setQueueLimits: 'setQueueLimits' },
  reads: { peek: 'peek', telemetry: 'telemetry' },
};

/**
 * A build's RedisBackend as the benchmarks call it, in parts
 * (`backend.tasks.enqueue`). A build from before the backends had parts
 * (its prototype has `enqueue`) gets each part made of its own methods, so
 * an A/B run can compare across that change; a newer one is used as it is.
 */
export function inParts(Backend: BackendConstructor): BackendConstructor {
  const prototype = Backend.prototype as unknown as Record<string, unknown>;
  if (typeof prototype.enqueue !== 'function') return Backend;
  function PartsOf(alias: string, config: BackendConfig, rules: StoreRules): TaskBackend {
    // An older build takes no rules and ignores them.
    const flat = new Backend(alias, config, rules) as unknown as Flat;
    const parts: Record<string, Record<string, Call>> = {};
    for (const [part, names] of Object.entries(FLAT_NAMES)) {
      parts[part] = {};
      for (const [method, name] of Object.entries(names)) {
        parts[part][method] = (...args) => flat[name](...args);
      }
    }
    return Object.assign(Object.create(flat) as object, parts) as unknown as TaskBackend;
  }
  return PartsOf as unknown as BackendConstructor;
}
