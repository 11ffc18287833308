import { useAction } from './actions';
import { act, getJson, part } from './api';
import type { ScheduleInfo } from './api-types';
import { useDashboard } from './context';
import { dateTime, duration } from './format';
import { usePolled } from './hooks';
import { href } from './router';

function rule(schedule: ScheduleInfo): string {
  if (schedule.cron) return `${schedule.cron}${schedule.timezone ? ` (${schedule.timezone})` : ''}`;
  return schedule.every !== undefined ? `every ${duration(schedule.every)}` : '—';
}

/** The alias's schedules: when each ticks, its next and last tick, and "Run now". */
export function SchedulesView() {
  const { alias, meta } = useDashboard();
  const schedules = usePolled(
    `schedules:${alias}`,
    () => getJson<ScheduleInfo[]>('schedules', { alias }),
    meta.refreshMs,
  );
  const list = schedules.data ?? [];
  return (
    <section aria-labelledby="schedules-title">
      <h2 id="schedules-title" tabIndex={-1}>
        Schedules
      </h2>
      {schedules.error && (
        <p class="error" role="alert">
          The schedules could not be read: {schedules.error}
        </p>
      )}
      {!schedules.data && !schedules.error && <p role="status">Reading the schedules…</p>}
      {schedules.data && list.length === 0 && <p>This backend has no schedules.</p>}
      {list.length > 0 && (
        <div class="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Schedule</th>
                <th scope="col">Task</th>
                <th scope="col">When</th>
                <th scope="col">Next tick</th>
                <th scope="col">Last tick</th>
                <th scope="col">Last status</th>
                {meta.canAct && (
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {list.map((schedule) => (
                <tr key={schedule.id} data-schedule={schedule.id}>
                  <th scope="row">
                    {schedule.id}
                    {schedule.paused && <span class="badge paused">Paused</span>}
                  </th>
                  <td>
                    {schedule.task}
                    {schedule.queue && <span class="muted"> on {schedule.queue}</span>}
                  </td>
                  <td>{rule(schedule)}</td>
                  <td>{schedule.paused ? 'paused' : dateTime(schedule.nextTickAt)}</td>
                  <td>
                    {schedule.lastTick ? (
                      <a href={href({ view: 'task', id: schedule.lastTick.taskId }, alias)}>
                        {dateTime(schedule.lastTick.at)}
                      </a>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>{schedule.lastTick ? (schedule.lastTick.status ?? 'expired') : '—'}</td>
                  {meta.canAct && (
                    <td>
                      <RunNow id={schedule.id} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function RunNow({ id }: { id: string }) {
  const { alias } = useDashboard();
  const { busy, run } = useAction();
  return (
    <button
      type="button"
      class="small"
      disabled={busy}
      aria-label={`Run schedule ${id} now`}
      onClick={() =>
        void run(async () => {
          await act(`schedules/${part(id)}/run`, { alias });
          return `Schedule ${id} ran: its task is enqueued.`;
        })
      }
    >
      Run now
    </button>
  );
}
