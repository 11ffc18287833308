import type { ComponentChildren } from 'preact';

import { getJson, part } from './api';
import { isRedacted, type Segment, type TaskDetail, type TaskError } from './api-types';
import { useDashboard } from './context';
import { dateTime, json, progressText } from './format';
import { usePolled } from './hooks';
import { href } from './router';
import { TaskActions } from './task-actions';

/** The list a task is in, by its status (a READY task due later is deferred). */
function segmentOf(task: TaskDetail): Segment {
  if (task.status === 'READY') {
    return task.runAfter && new Date(task.runAfter).getTime() > Date.now() ? 'deferred' : 'ready';
  }
  return task.status.toLowerCase() as Segment;
}

/** A value, or plainly that the dashboard's redact option hides it. */
function Value({ value }: { value: unknown }) {
  if (isRedacted(value)) {
    return <p class="redacted">Redacted: the dashboard is set to hide this for this task.</p>;
  }
  return <pre class="value">{json(value)}</pre>;
}

function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

export function TaskDetailView({ id }: { id: string }) {
  const { alias, meta } = useDashboard();
  const detail = usePolled(
    `task:${alias}:${id}`,
    () => getJson<TaskDetail>(`tasks/${part(id)}`, { alias }),
    meta.refreshMs,
  );
  const task = detail.data;
  return (
    <section aria-labelledby="task-title" class="task-detail">
      <h2 id="task-title" tabIndex={-1}>
        Task <code class="task-id">{id}</code>
      </h2>
      {detail.error && (
        <p class="error" role="alert">
          {detail.error}
        </p>
      )}
      {!task && !detail.error && <p role="status">Reading the task…</p>}
      {task && (
        <>
          <p class="crumbs">
            <a href={href({ view: 'tasks', queue: task.queue, segment: segmentOf(task) }, alias)}>
              Back to the {segmentOf(task)} tasks of queue {task.queue}
            </a>
          </p>
          {meta.canAct && <TaskActions task={task} />}
          <dl class="fields">
            <Field label="Name">{task.name}</Field>
            <Field label="Queue">{task.queue}</Field>
            <Field label="Status">
              <span class={`status ${task.status.toLowerCase()}`}>{task.status}</span>
            </Field>
            <Field label="Attempts">{task.attempts}</Field>
            <Field label="Enqueued">{dateTime(task.enqueuedAt)}</Field>
            {task.runAfter && <Field label="Runs after">{dateTime(task.runAfter)}</Field>}
            <Field label="Started">{dateTime(task.startedAt)}</Field>
            <Field label="Finished">{dateTime(task.finishedAt)}</Field>
            <Field label="Workers">
              {task.workerIds.length
                ? task.workerIds.map((w, i) => <code key={i}>{w} </code>)
                : '—'}
            </Field>
            <Field label="Progress">{progressText(task.progress) || '—'}</Field>
            {task.schedule && (
              <Field label="Schedule">
                {task.schedule.id} (tick {dateTime(task.schedule.tickAt)})
              </Field>
            )}
            <Field label="Trace id">{task.traceId ? <code>{task.traceId}</code> : '—'}</Field>
          </dl>
          <h3>Arguments</h3>
          <Value value={task.args} />
          {task.status === 'SUCCESSFUL' && (
            <>
              <h3>Result</h3>
              <Value value={task.result} />
            </>
          )}
          <h3>Errors</h3>
          {isRedacted(task.errors) ? (
            <Value value={task.errors} />
          ) : task.errors.length === 0 ? (
            <p>None.</p>
          ) : (
            <ol class="errors">
              {task.errors.map((error, i) => (
                <ErrorItem key={i} error={error} attempt={i + 1} />
              ))}
            </ol>
          )}
          <h3>Timeline</h3>
          {task.timeline.length === 0 ? (
            <p>Not attempted yet.</p>
          ) : (
            <ol class="timeline">
              {task.timeline.map((entry) => (
                <li key={entry.attempt}>
                  <strong>Attempt {entry.attempt}</strong>
                  {entry.at && <> at {dateTime(entry.at)}</>}
                  {entry.workerId && (
                    <>
                      {' '}
                      on <code>{entry.workerId}</code>
                    </>
                  )}
                  {entry.error ? <span class="error">: {entry.error}</span> : null}
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </section>
  );
}

function ErrorItem({ error, attempt }: { error: TaskError; attempt: number }) {
  return (
    <li>
      <p>
        <strong>Attempt {attempt}:</strong> {error.message}
      </p>
      {error.stack && (
        <pre class="stack" tabIndex={0} aria-label={`Stack of attempt ${attempt}`}>
          {error.stack}
        </pre>
      )}
    </li>
  );
}
