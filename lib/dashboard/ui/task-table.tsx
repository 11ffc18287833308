import { isRedacted, type Segment, type TaskSummary } from './api-types';
import { useDashboard } from './context';
import { dateTime, progressText, shortId } from './format';
import { href } from './router';

interface TaskTableProps {
  tasks: TaskSummary[];
  segment: Segment;
  /** Checkboxes for the bulk actions (only for a viewer who may act). */
  selectable: boolean;
  selected: ReadonlySet<string>;
  onToggle(id: string): void;
  onToggleAll(all: boolean): void;
  empty: string;
}

/** The time column that matters in a segment: when it was enqueued, is due, started or ended. */
function timeColumn(segment: Segment): { label: string; of: (t: TaskSummary) => string } {
  switch (segment) {
    case 'ready':
      return { label: 'Enqueued', of: (t) => dateTime(t.enqueuedAt) };
    case 'deferred':
      return { label: 'Runs after', of: (t) => dateTime(t.runAfter) };
    case 'running':
      return { label: 'Started', of: (t) => dateTime(t.startedAt) };
    default:
      return { label: 'Finished', of: (t) => dateTime(t.finishedAt) };
  }
}

export function TaskTable(props: TaskTableProps) {
  const { alias } = useDashboard();
  const { tasks, segment, selectable, selected } = props;
  if (tasks.length === 0) return <p class="empty">{props.empty}</p>;
  const time = timeColumn(segment);
  const showProgress = tasks.some((t) => t.progress !== undefined && t.progress !== null);
  const showError = tasks.some((t) => t.lastError);
  const allSelected = tasks.every((t) => selected.has(t.id));
  return (
    <div class="table-scroll">
      <table class="tasks">
        <caption class="visually-hidden">Tasks, {tasks.length} on this page</caption>
        <thead>
          <tr>
            {selectable && (
              <th scope="col" class="check">
                <input
                  type="checkbox"
                  aria-label="Select every task on this page"
                  checked={allSelected}
                  onChange={() => props.onToggleAll(!allSelected)}
                />
              </th>
            )}
            <th scope="col">Id</th>
            <th scope="col">Task</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Attempts
            </th>
            <th scope="col">{time.label}</th>
            {showProgress && <th scope="col">Progress</th>}
            {showError && <th scope="col">Last error</th>}
          </tr>
        </thead>
        <tbody>
          {tasks.map((task) => (
            <tr key={task.id} data-id={task.id} class={selected.has(task.id) ? 'selected' : ''}>
              {selectable && (
                <td class="check">
                  <input
                    type="checkbox"
                    aria-label={`Select task ${task.id}`}
                    checked={selected.has(task.id)}
                    onChange={() => props.onToggle(task.id)}
                  />
                </td>
              )}
              <td>
                <a
                  href={href({ view: 'task', id: task.id }, alias)}
                  title={task.id}
                  aria-label={`Task ${task.id}`}
                >
                  <code>{shortId(task.id)}</code>
                </a>
              </td>
              <td>{task.name}</td>
              <td>
                <span class={`status ${task.status.toLowerCase()}`}>{task.status}</span>
              </td>
              <td class="num">{task.attempts}</td>
              <td>{time.of(task)}</td>
              {showProgress && <td>{progressText(task.progress)}</td>}
              {showError && (
                <td class="last-error">
                  {isRedacted(task.lastError) ? <em>redacted</em> : (task.lastError ?? '')}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
