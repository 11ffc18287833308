// What the dashboard's HTTP API answers with, as the server builds it. Types
// only, importing nothing that needs Node or Nest: the page (lib/dashboard/ui)
// imports them too, so the two cannot drift apart.
import type { QueueCounts, QueueRates } from '../core/backend-telemetry.interface';
import type { QueueLimits } from '../core/queue-limits';

/** Which store an alias keeps its tasks in, as the page names it. */
export type BackendKind = 'redis' | 'sqlite' | 'memory' | 'other';

/** What the page learns first: the aliases, whether it may act, how often it refreshes. */
export interface DashboardMeta {
  aliases: { alias: string; kind: BackendKind }[];
  /** Whether this viewer may act (retry, cancel, pause...). */
  canAct: boolean;
  refreshMs: number;
  csrfHeader: string;
}

/** One queue as the overview shows it. */
export interface OverviewQueue {
  name: string;
  counts: QueueCounts;
  rates: QueueRates;
  paused: boolean;
  limits: QueueLimits | null;
}

/** Every queue of one alias at one moment. */
export interface Overview {
  alias: string;
  /** When it was read (ISO). */
  at: string;
  queues: OverviewQueue[];
}
