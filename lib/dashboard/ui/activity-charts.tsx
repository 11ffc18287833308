import { useState } from 'preact/hooks';

import { getJson } from './api';
import type { Activity, QueueActivity } from './api-types';
import { Chart } from './chart';
import { useDashboard } from './context';
import { usePolled } from './hooks';

/** The server caches activity ~10 s: reading it more often shows nothing new. */
const ACTIVITY_MIN_REFRESH_MS = 10_000;

function sum(a: number[], b: number[]): number[] {
  return a.map((value, i) => value + (b[i] ?? 0));
}

/** Per bucket, the mean of each queue's mean weighted by its finished tasks. */
function weightedMean(queues: QueueActivity[], pick: (q: QueueActivity) => (number | null)[]) {
  const length = queues[0]?.enqueued.length ?? 0;
  return Array.from({ length }, (_, i) => {
    let total = 0;
    let weight = 0;
    for (const queue of queues) {
      const value = pick(queue)[i];
      if (value === null || value === undefined) continue;
      const finished = queue.successful[i] + queue.failed[i] + queue.cancelled[i] || 1;
      total += value * finished;
      weight += finished;
    }
    return weight ? total / weight : null;
  });
}

/** The queues' activity of the window, summed over every queue (or one picked). */
export function combine(queues: QueueActivity[]): QueueActivity | null {
  if (queues.length === 0) return null;
  if (queues.length === 1) return queues[0];
  const counts = (pick: (q: QueueActivity) => number[]): number[] =>
    queues.map(pick).reduce((a, b) => sum(a, b));
  return {
    enqueued: counts((q) => q.enqueued),
    successful: counts((q) => q.successful),
    failed: counts((q) => q.failed),
    cancelled: counts((q) => q.cancelled),
    waitMs: weightedMean(queues, (q) => q.waitMs),
    runMs: weightedMean(queues, (q) => q.runMs),
  };
}

/** The window and bucket in words, as the server chose them: `each minute over the last hour`. */
function windowText(buckets: number, bucketMs: number): string {
  const each = bucketMs === 60_000 ? 'minute' : `${bucketMs / 1000} s`;
  const minutes = Math.round((buckets * bucketMs) / 60_000);
  const span =
    minutes === 60 ? 'hour' : minutes % 60 === 0 ? `${minutes / 60} hours` : `${minutes} minutes`;
  return `each ${each} over the last ${span}`;
}

export function ActivityCharts({ queues }: { queues: string[] }) {
  const { alias, meta } = useDashboard();
  const [picked, setPicked] = useState('');
  const activity = usePolled(
    `activity:${alias}`,
    () => getJson<Activity>('activity', { alias }),
    Math.max(meta.refreshMs, ACTIVITY_MIN_REFRESH_MS),
  );
  const data = activity.data;
  const shown = data
    ? combine(
        Object.entries(data.queues)
          .filter(([name]) => picked === '' || name === picked)
          .map(([, queue]) => queue),
      )
    : null;
  const start = data ? new Date(data.start) : new Date();
  const bucketMs = data?.bucketMs ?? 60_000;
  const finished = shown ? sum(sum(shown.successful, shown.failed), shown.cancelled) : [];
  const span = windowText(shown?.enqueued.length ?? 60, bucketMs);
  return (
    <section class="activity" aria-labelledby="activity-title">
      <div class="section-head">
        <h3 id="activity-title">Activity</h3>
        <label>
          Queue{' '}
          <select value={picked} onChange={(event) => setPicked(event.currentTarget.value)}>
            <option value="">All queues</option>
            {queues.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {activity.error && <p class="error">Activity could not be read: {activity.error}</p>}
      {!data && !activity.error && <p role="status">Reading the activity…</p>}
      {data && !shown && <p>No activity recorded.</p>}
      {shown && (
        <div class="charts">
          <Chart
            title="Throughput"
            caption={`Tasks enqueued, and tasks finished (successful, failed or cancelled), ${span}. In tasks.`}
            unit="tasks"
            start={start}
            bucketMs={bucketMs}
            series={[
              { label: 'Enqueued', values: shown.enqueued },
              { label: 'Finished', values: finished },
            ]}
          />
          <Chart
            title="Failures"
            caption={`Tasks that finished failed, ${span}. In tasks.`}
            unit="tasks"
            bars
            start={start}
            bucketMs={bucketMs}
            series={[{ label: 'Failed', values: shown.failed }]}
          />
          <Chart
            title="Wait time"
            caption={`Mean time from due to first start of the tasks finished ${span}. In ms, s or min, as the axis marks.`}
            unit="ms"
            start={start}
            bucketMs={bucketMs}
            series={[{ label: 'Mean wait', values: shown.waitMs }]}
          />
          <Chart
            title="Run time"
            caption={`Mean time from last start to finish of the tasks finished ${span}. In ms, s or min, as the axis marks.`}
            unit="ms"
            start={start}
            bucketMs={bucketMs}
            series={[{ label: 'Mean run', values: shown.runMs }]}
          />
        </div>
      )}
      {data && (
        <p class="note">
          Per {Math.round(bucketMs / 60_000) || bucketMs / 1000}
          {bucketMs >= 60_000 ? ' min' : ' s'} since {start.toLocaleTimeString()}.
        </p>
      )}
    </section>
  );
}
