import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { dashboardFailed, dashboardReadFailedLog } from './dashboard.messages';
import type { Overview } from './dashboard-api.interface';
import { DashboardBackends } from './dashboard-backends';
import { DASHBOARD_SETTINGS, type DashboardSettings } from './dashboard-settings';

/** The window of the overview's rates. */
const RATES_WINDOW_MS = 60_000;

/** What a subscriber hears each refresh: the overview, or that it could not be read. */
export type OverviewUpdate = { overview: Overview } | { error: { name: string; message: string } };

/** The shared reads of one alias. */
interface AliasFeed {
  readonly listeners: Set<(update: OverviewUpdate) => void>;
  timer: NodeJS.Timeout | undefined;
  reading: Promise<Overview> | undefined;
  last: { overview: Overview; readAtMs: number } | undefined;
  failing: boolean;
}

/**
 * The overview of each alias, read once per refresh for every client at
 * once: one telemetry, paused and limits read of the store per `refreshMs`
 * while someone listens (the live stream), none while nobody does. A read
 * between refreshes (GET /api/overview) takes the latest when it is fresh,
 * or joins the read under way.
 *
 * @internal
 */
@Injectable()
export class OverviewSnapshots implements OnModuleDestroy {
  private readonly logger = new Logger('ThreadmillDashboard');
  private readonly feeds = new Map<string, AliasFeed>();

  constructor(
    private readonly backends: DashboardBackends,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
  ) {}

  /**
   * Calls `listener` with each refresh of `alias`'s overview (the latest
   * one at once, when there is one) until the returned function is called.
   */
  subscribe(alias: string, listener: (update: OverviewUpdate) => void): () => void {
    const feed = this.feedOf(alias);
    feed.listeners.add(listener);
    if (feed.timer === undefined) {
      feed.timer = setInterval(() => this.refresh(alias, feed), this.settings.refreshMs);
      this.refresh(alias, feed);
    } else if (feed.last !== undefined && this.fresh(feed.last.readAtMs)) {
      listener({ overview: feed.last.overview });
    }
    return () => {
      if (!feed.listeners.delete(listener) || feed.listeners.size > 0) return;
      clearInterval(feed.timer);
      feed.timer = undefined;
    };
  }

  /** The overview of `alias` now: the latest refresh when it is fresh, else a read. */
  current(alias: string): Promise<Overview> {
    const feed = this.feedOf(alias);
    const { last } = feed;
    if (last !== undefined && this.fresh(last.readAtMs)) {
      return Promise.resolve(last.overview);
    }
    return this.read(alias, feed);
  }

  onModuleDestroy(): void {
    for (const feed of this.feeds.values()) {
      clearInterval(feed.timer);
      feed.timer = undefined;
      feed.listeners.clear();
    }
  }

  /** Read within the last refresh period. */
  private fresh(readAtMs: number): boolean {
    return Date.now() - readAtMs < this.settings.refreshMs;
  }

  private feedOf(alias: string): AliasFeed {
    let feed = this.feeds.get(alias);
    if (feed === undefined) {
      feed = {
        listeners: new Set(),
        timer: undefined,
        reading: undefined,
        last: undefined,
        failing: false,
      };
      this.feeds.set(alias, feed);
    }
    return feed;
  }

  /** One refresh for every listener; skipped while the previous read has not answered. */
  private refresh(alias: string, feed: AliasFeed): void {
    if (feed.reading !== undefined) return;
    this.read(alias, feed).then(
      (overview) => this.tell(feed, { overview }),
      () => this.tell(feed, { error: { name: 'Error', message: dashboardFailed() } }),
    );
  }

  private tell(feed: AliasFeed, update: OverviewUpdate): void {
    for (const listener of [...feed.listeners]) listener(update);
  }

  private read(alias: string, feed: AliasFeed): Promise<Overview> {
    feed.reading ??= this.readStore(alias).then(
      (overview) => {
        feed.reading = undefined;
        feed.last = { overview, readAtMs: Date.now() };
        feed.failing = false;
        return overview;
      },
      (error: unknown) => {
        feed.reading = undefined;
        // Logged once per outage, not every refresh of it.
        if (!feed.failing) {
          this.logger.error(
            dashboardReadFailedLog('overview', alias),
            error instanceof Error ? error.stack : String(error),
          );
        }
        feed.failing = true;
        throw error;
      },
    );
    return feed.reading;
  }

  private async readStore(alias: string): Promise<Overview> {
    const backend = this.backends.get(alias);
    const [telemetry, paused, limits] = await Promise.all([
      backend.reads.telemetry(RATES_WINDOW_MS),
      backend.control.pausedQueues(),
      backend.control.queueLimits(),
    ]);
    return {
      alias,
      at: new Date().toISOString(),
      queues: backend.queues.map((name) => ({
        name,
        counts: telemetry.queues[name].counts,
        rates: telemetry.queues[name].rates,
        paused: paused.includes(name),
        limits: limits[name] ?? null,
      })),
    };
  }
}
