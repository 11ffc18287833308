import { useState } from 'preact/hooks';

import { getJson } from './api';
import { SEGMENTS, type TaskPage } from './api-types';
import { BulkActions } from './bulk-actions';
import { useDashboard } from './context';
import { count, SEGMENT_LABELS } from './format';
import { useKeyedState, usePolled } from './hooks';
import { href, navigate, type TaskListRoute } from './router';
import { TaskFilters } from './task-filters';
import { TaskTable } from './task-table';

const PAGE_SIZES = [25, 50, 100, 200];

/** One segment of one queue, a page at a time, with filters, selection and bulk actions. */
export function TaskListView({ route }: { route: TaskListRoute }) {
  const { alias, overview, meta } = useDashboard();
  const [limit, setLimit] = useState(50);
  /** The cursors of the pages before this one, and this one's (absent: the first page). */
  const filterKey = JSON.stringify([alias, route, limit]);
  const [cursors, setCursors] = useKeyedState<string[]>(filterKey, []);
  const cursor = cursors[cursors.length - 1];
  const [selected, setSelected] = useKeyedState<ReadonlySet<string>>(
    `${filterKey}:${cursor ?? ''}`,
    new Set(),
  );
  const page = usePolled(
    JSON.stringify([filterKey, cursor]),
    () =>
      route.id
        ? getJson<TaskPage>('tasks', { alias, id: route.id })
        : getJson<TaskPage>('tasks', {
            alias,
            queue: route.queue,
            segment: route.segment,
            limit,
            cursor,
            task: route.task,
          }),
    meta.refreshMs,
  );
  const queue = overview?.queues.find((q) => q.name === route.queue);
  const tasks = page.data?.tasks ?? [];
  const next = page.data?.next ?? null;

  const toggle = (id: string): void =>
    setSelected((old) => {
      const copy = new Set(old);
      if (!copy.delete(id)) copy.add(id);
      return copy;
    });
  const toggleAll = (all: boolean): void =>
    setSelected(all ? new Set(tasks.map((t) => t.id)) : new Set());
  // Selected tasks that left the page (finished, retried, removed) are no longer selected.
  const present = new Set(tasks.map((t) => t.id));
  const selection = [...selected].filter((id) => present.has(id));

  return (
    <section aria-labelledby="tasks-title">
      <div class="section-head">
        <h2 id="tasks-title" tabIndex={-1}>
          Queue {route.queue}
          {queue?.paused && <span class="badge paused">Paused</span>}
        </h2>
        {overview && overview.queues.length > 1 && (
          <label>
            Queue{' '}
            <select
              value={route.queue}
              onChange={(event) =>
                navigate({ ...route, queue: event.currentTarget.value, id: undefined }, alias)
              }
            >
              {overview.queues.map((q) => (
                <option key={q.name} value={q.name}>
                  {q.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      <nav aria-label="Task states" class="tabs">
        <ul>
          {SEGMENTS.map((segment) => (
            <li key={segment}>
              <a
                href={href({ view: 'tasks', queue: route.queue, segment, task: route.task }, alias)}
                aria-current={segment === route.segment && !route.id ? 'page' : undefined}
              >
                {SEGMENT_LABELS[segment]}
                {queue && <span class="tab-count"> {count(queue.counts[segment])}</span>}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <TaskFilters key={JSON.stringify(route)} route={route} />
      {meta.canAct && !route.id && (
        <BulkActions route={route} selected={selection} onDone={() => setSelected(new Set())} />
      )}
      {page.error && (
        <p class="error" role="alert">
          The tasks could not be read: {page.error}
        </p>
      )}
      {!page.data && !page.error ? (
        <p role="status">Reading the tasks…</p>
      ) : (
        page.data && (
          <TaskTable
            tasks={tasks}
            segment={route.segment}
            selectable={meta.canAct && !route.id}
            selected={new Set(selection)}
            onToggle={toggle}
            onToggleAll={toggleAll}
            empty={
              route.id
                ? `No task has the id ${route.id}.`
                : `No ${SEGMENT_LABELS[route.segment].toLowerCase()} tasks${route.task ? ` named ${route.task}` : ''}${cursor ? ' on this page' : ''}.`
            }
          />
        )
      )}
      {!route.id && (
        <div class="pager">
          <button type="button" disabled={!cursor} onClick={() => setCursors([])}>
            First page
          </button>
          <button
            type="button"
            disabled={!cursor}
            onClick={() => setCursors((old) => old.slice(0, -1))}
          >
            Previous page
          </button>
          <button
            type="button"
            disabled={next === null}
            onClick={() => next && setCursors((old) => [...old, next])}
          >
            Next page
          </button>
          <label>
            Per page{' '}
            <select value={limit} onChange={(event) => setLimit(Number(event.currentTarget.value))}>
              {PAGE_SIZES.map((size) => (
                <option key={size} value={size}>
                  {size}
                </option>
              ))}
            </select>
          </label>
          {route.task && next !== null && tasks.length < limit && (
            <p class="note">
              Filtering by name reads a bounded stretch of the queue per page: the next page may
              hold more.
            </p>
          )}
        </div>
      )}
    </section>
  );
}
