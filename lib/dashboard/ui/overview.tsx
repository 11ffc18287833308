import { SEGMENTS, type QueueOverview } from './api-types';
import { ActivityCharts } from './activity-charts';
import { useDashboard } from './context';
import { count, dateTime, limitsText, SEGMENT_LABELS } from './format';
import { LimitsButton, PauseButton } from './queue-controls';
import { href } from './router';

/** Every queue of the alias with its counts, state and limits, then its last hour. */
export function OverviewView() {
  const { overview, alias, meta } = useDashboard();
  return (
    <section aria-labelledby="overview-title">
      <h2 id="overview-title" tabIndex={-1}>
        Queues
      </h2>
      {!overview ? (
        <p role="status">Reading the queues…</p>
      ) : overview.queues.length === 0 ? (
        <p>This backend has no queues.</p>
      ) : (
        <>
          <div class="table-scroll">
            <table class="queues">
              <caption class="visually-hidden">
                Tasks of each queue by state, at {dateTime(overview.at)}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Queue</th>
                  {SEGMENTS.map((segment) => (
                    <th scope="col" class="num" key={segment}>
                      {SEGMENT_LABELS[segment]}
                    </th>
                  ))}
                  <th scope="col">State</th>
                  <th scope="col">Limits</th>
                </tr>
              </thead>
              <tbody>
                {overview.queues.map((queue) => (
                  <QueueRow key={queue.name} queue={queue} alias={alias} canAct={meta.canAct} />
                ))}
              </tbody>
            </table>
          </div>
          <p class="note">
            Counts as of <time dateTime={overview.at}>{dateTime(overview.at)}</time>.
          </p>
        </>
      )}
      <ActivityCharts queues={overview?.queues.map((q) => q.name) ?? []} />
    </section>
  );
}

function QueueRow({
  queue,
  alias,
  canAct,
}: {
  queue: QueueOverview;
  alias: string;
  canAct: boolean;
}) {
  return (
    <tr data-queue={queue.name}>
      <th scope="row">
        <a href={href({ view: 'tasks', queue: queue.name, segment: 'ready' }, alias)}>
          {queue.name}
        </a>
      </th>
      {SEGMENTS.map((segment) => (
        <td class="num" key={segment} data-segment={segment}>
          <a
            href={href({ view: 'tasks', queue: queue.name, segment }, alias)}
            aria-label={`${count(queue.counts[segment])} ${SEGMENT_LABELS[segment].toLowerCase()} in ${queue.name}`}
          >
            {count(queue.counts[segment])}
          </a>
        </td>
      ))}
      <td>
        <span class={queue.paused ? 'badge paused' : 'badge'}>
          {queue.paused ? 'Paused' : 'Active'}
        </span>
        {canAct && <PauseButton queue={queue} />}
      </td>
      <td>
        <span>{limitsText(queue.limits)}</span>
        {canAct && <LimitsButton queue={queue} />}
      </td>
    </tr>
  );
}
