import { useState } from 'preact/hooks';

import { useAction } from './actions';
import { act, part } from './api';
import type { Segment, TaskDetail } from './api-types';
import { ConfirmDialog } from './confirm-dialog';
import { useDashboard } from './context';
import { navigate } from './router';

type Verb = 'retry' | 'cancel' | 'remove';

const FINAL = ['SUCCESSFUL', 'FAILED', 'CANCELLED'];

/** Retry, cancel or remove one task: only the actions its status allows. */
export function TaskActions({ task }: { task: TaskDetail }) {
  const { alias } = useDashboard();
  const { busy, run } = useAction();
  const [confirming, setConfirming] = useState<Verb | null>(null);
  const final = FINAL.includes(task.status);
  const verbs: Verb[] = [];
  if (task.status === 'FAILED' || task.status === 'CANCELLED') verbs.push('retry');
  if (!final) verbs.push('cancel');
  if (final) verbs.push('remove');
  const perform = (verb: Verb): Promise<boolean> =>
    run(async () => {
      await act(`tasks/${part(task.id)}/${verb}`, { alias });
      if (verb === 'remove') {
        const segment = task.status.toLowerCase() as Segment;
        navigate({ view: 'tasks', queue: task.queue, segment }, alias);
      }
      return { retry: 'Task retried.', cancel: 'Task cancelled.', remove: 'Task removed.' }[verb];
    });
  return (
    <div class="actions" role="group" aria-label="Actions on this task">
      {verbs.map((verb) => (
        <button
          key={verb}
          type="button"
          class={verb === 'retry' ? 'primary' : 'danger'}
          disabled={busy}
          onClick={() => (verb === 'retry' ? void perform(verb) : setConfirming(verb))}
        >
          {verb === 'retry' ? 'Retry' : verb === 'cancel' ? 'Cancel task' : 'Remove'}
        </button>
      ))}
      {confirming && (
        <ConfirmDialog
          title={confirming === 'cancel' ? 'Cancel this task?' : 'Remove this task?'}
          confirmLabel={confirming === 'cancel' ? 'Cancel task' : 'Remove'}
          danger
          confirmDisabled={busy}
          onClose={() => setConfirming(null)}
          onConfirm={() => void perform(confirming).then(() => setConfirming(null))}
        >
          <p>
            {confirming === 'cancel'
              ? 'A waiting task will not run; a running one is asked to stop.'
              : 'Its record and result are deleted for good.'}
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
