import type { BackendConfig } from './core/backend-config.interface';
import type { JoinTransactionsOptions } from './core/join-transactions-options.interface';
import type { InProcessWorkerOptions } from './core/in-process-worker-options.interface';
import type { ThreadmillMetricsOptions } from './core/metrics-options.interface';

/**
 * Options of `ThreadmillModule.forRoot` (and what `forRootAsync`'s factory returns).
 *
 * @example
 * ```ts
 * const options: ThreadmillModuleOptions = {
 *   backends: { default: { backend: MemoryBackend, queues: ['default', 'emails'] } },
 * };
 * ```
 * @publicApi
 */
export interface ThreadmillModuleOptions {
  /** One entry per backend alias; tasks use `'default'` unless they name another. */
  backends: Record<string, BackendConfig>;
  /**
   * The name of this application: give every process of one application (web
   * app, worker pools, CLI) the same, and each application that shares a
   * store with others its own. A declared schedule belongs to the app that
   * declared it: a pool syncs and ticks only its own app's declared
   * schedules, and never removes another app's. A name like an alias (1-200
   * characters without whitespace, `{`, `}` or `:`). Default `'default'`,
   * which also owns the schedules stored before apps were recorded.
   */
  app?: string;
  /**
   * Prometheus metrics of this process (ThreadmillMetrics): `true`, or where
   * to register them (`{ registry }`). Off by default; needs prom-client.
   */
  metrics?: boolean | ThreadmillMetricsOptions;
  /**
   * Runs tasks in this app's own process once it has bootstrapped, with a
   * pool's leases, heartbeat, recovery and graceful stop but no child
   * processes: `true` for `threadmill worker`'s defaults, or its options. For
   * local development and small apps: a task that blocks the event loop
   * blocks the app. Never started by a threadmill command or in a pool's
   * child. Off by default.
   */
  inProcessWorker?: boolean | InProcessWorkerOptions;
  /**
   * Joins the transactions of `@nestjs-cls/transactional`: an enqueue made
   * inside a `@Transactional()` method (or `TransactionHost.withTransaction`)
   * writes its task in that transaction, as the `transaction` option does,
   * and one made outside stores at once. `true` joins the plugin registered
   * without a `connectionName`; `{ connectionName }` names another. An
   * explicit `transaction` option wins. Off by default; needs nestjs-cls and
   * @nestjs-cls/transactional.
   */
  joinTransactions?: boolean | JoinTransactionsOptions;
}
