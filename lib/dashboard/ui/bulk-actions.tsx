import { useEffect, useState } from 'preact/hooks';

import { tasks as taskCount, useAction } from './actions';
import { act, errorText } from './api';
import type { Segment } from './api-types';
import { ConfirmDialog } from './confirm-dialog';
import { useDashboard } from './context';
import { SEGMENT_LABELS } from './format';
import type { TaskListRoute } from './router';

type Verb = 'retry' | 'cancel' | 'remove';

const isFinal = (segment: Segment): boolean =>
  segment === 'successful' || segment === 'failed' || segment === 'cancelled';

const VERBS: Record<Verb, { label: string; done: string; danger: boolean }> = {
  retry: { label: 'Retry', done: 'Retried', danger: false },
  cancel: { label: 'Cancel', done: 'Cancelled', danger: true },
  remove: { label: 'Remove', done: 'Removed', danger: true },
};

/** What a segment's tasks can have done to them: to those selected, and to every one matching. */
function verbsOf(segment: Segment): { selected: Verb[]; all: Verb[] } {
  switch (segment) {
    case 'ready':
    case 'deferred':
      return { selected: ['cancel'], all: ['cancel'] };
    case 'running':
      return { selected: ['cancel'], all: [] };
    case 'successful':
      return { selected: ['remove'], all: ['remove'] };
    case 'failed':
    case 'cancelled':
      return { selected: ['retry', 'remove'], all: ['retry', 'remove'] };
  }
}

interface Pending {
  verb: Verb;
  scope: 'selected' | 'all';
}

export function BulkActions({
  route,
  selected,
  onDone,
}: {
  route: TaskListRoute;
  selected: readonly string[];
  onDone(): void;
}) {
  const [pending, setPending] = useState<Pending | null>(null);
  const verbs = verbsOf(route.segment);
  return (
    <div class="bulk" role="group" aria-label="Actions on tasks">
      {verbs.selected.map((verb) => (
        <button
          key={`selected-${verb}`}
          type="button"
          disabled={selected.length === 0}
          onClick={() => setPending({ verb, scope: 'selected' })}
        >
          {VERBS[verb].label} selected ({selected.length})
        </button>
      ))}
      {verbs.all.map((verb) => (
        <button
          key={`all-${verb}`}
          type="button"
          onClick={() => setPending({ verb, scope: 'all' })}
        >
          {VERBS[verb].label} all matching…
        </button>
      ))}
      {pending && (
        <BulkDialog
          route={route}
          pending={pending}
          selected={selected}
          onClose={() => setPending(null)}
          onDone={() => {
            setPending(null);
            onDone();
          }}
        />
      )}
    </div>
  );
}

/** Which tasks an "all matching" action covers, in words. */
function matching(route: TaskListRoute, verb: Verb): string {
  const named = route.task ? ` named ${route.task}` : '';
  if (verb === 'cancel')
    return `waiting tasks${named} of queue ${route.queue} (ready and deferred)`;
  return `${SEGMENT_LABELS[route.segment].toLowerCase()} tasks${named} of queue ${route.queue}`;
}

function BulkDialog({
  route,
  pending,
  selected,
  onClose,
  onDone,
}: {
  route: TaskListRoute;
  pending: Pending;
  selected: readonly string[];
  onClose(): void;
  onDone(): void;
}) {
  const { alias } = useDashboard();
  const { busy, run } = useAction();
  const [counted, setCounted] = useState<number | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const { verb, scope } = pending;
  const body =
    scope === 'selected'
      ? { ids: [...selected] }
      : {
          queue: route.queue,
          ...(route.task ? { task: route.task } : {}),
          ...(isFinal(route.segment) ? { status: route.segment } : {}),
        };
  // The server counts what the action would touch (a dry run) before it is confirmed.
  useEffect(() => {
    let stopped = false;
    act<{ count: number }>(`tasks/${verb}`, { alias }, { ...body, dryRun: true }).then(
      (answer) => !stopped && setCounted(answer.count),
      (error) => !stopped && setFailure(errorText(error)),
    );
    return () => {
      stopped = true;
    };
  }, []);
  const { label, done, danger } = VERBS[verb];
  const what = scope === 'selected' ? 'selected tasks' : matching(route, verb);
  return (
    <ConfirmDialog
      title={`${label} ${what}`}
      confirmLabel={counted === null ? label : `${label} ${taskCount(counted)}`}
      confirmDisabled={busy || counted === null || counted === 0}
      danger={danger}
      onClose={onClose}
      onConfirm={() =>
        void run(async () => {
          const answer = await act<{ count: number }>(`tasks/${verb}`, { alias }, body);
          return `${done} ${taskCount(answer.count)}.`;
        }).then((ok) => ok && onDone())
      }
    >
      {failure ? (
        <p class="error">Could not count them: {failure}</p>
      ) : counted === null ? (
        <p role="status">Counting…</p>
      ) : counted === 0 ? (
        <p role="status">No task matches: nothing to do.</p>
      ) : (
        <p role="status" data-count={counted}>
          This will {label.toLowerCase()} <strong>{taskCount(counted)}</strong>
          {scope === 'all' ? ` (${what})` : ''}.
        </p>
      )}
    </ConfirmDialog>
  );
}
