import { Injectable } from '@nestjs/common';
import type { BackendActivity } from '../core/task-listing';
import { DashboardBackends } from './dashboard-backends';

/** The charts' span and resolution: the last hour, per minute. */
const ACTIVITY_WINDOW_MS = 3_600_000;
const ACTIVITY_BUCKET_MS = 60_000;
/** How long one read serves every page: the charts move by the minute. */
export const ACTIVITY_CACHE_MS = 10_000;

/**
 * Each alias's activity of the last hour (throughput, failures, wait and
 * run time per minute), read at most once per ACTIVITY_CACHE_MS whatever
 * the number of pages asking; reads at the same moment share one.
 *
 * @internal
 */
@Injectable()
export class ActivityCache {
  private readonly entries = new Map<
    string,
    { readAtMs: number; activity: Promise<BackendActivity> }
  >();

  constructor(private readonly backends: DashboardBackends) {}

  /** @throws NotFoundException for an alias the dashboard does not show. */
  get(alias: string | undefined): Promise<BackendActivity> {
    const backend = this.backends.get(alias);
    const cached = this.entries.get(backend.alias);
    if (cached !== undefined && Date.now() - cached.readAtMs < ACTIVITY_CACHE_MS) {
      return cached.activity;
    }
    const activity = backend.reads.activity({
      windowMs: ACTIVITY_WINDOW_MS,
      bucketMs: ACTIVITY_BUCKET_MS,
    });
    const entry = { readAtMs: Date.now(), activity };
    this.entries.set(backend.alias, entry);
    // A failed read is not kept: the next request reads again.
    activity.catch(() => {
      if (this.entries.get(backend.alias) === entry) this.entries.delete(backend.alias);
    });
    return activity;
  }
}
