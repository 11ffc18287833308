import { useState } from 'preact/hooks';

import { useAction } from './actions';
import { act, part } from './api';
import type { QueueLimits, QueueOverview } from './api-types';
import { ConfirmDialog } from './confirm-dialog';
import { useDashboard } from './context';
import { limitsText } from './format';

/** Pause (or resume) the queue for every pool. */
export function PauseButton({ queue }: { queue: QueueOverview }) {
  const { alias } = useDashboard();
  const { busy, run } = useAction();
  const verb = queue.paused ? 'resume' : 'pause';
  return (
    <button
      type="button"
      class="small"
      disabled={busy}
      aria-label={`${queue.paused ? 'Resume' : 'Pause'} queue ${queue.name}`}
      onClick={() =>
        void run(async () => {
          await act(`queues/${part(queue.name)}/${verb}`, { alias });
          return `Queue ${queue.name} ${queue.paused ? 'resumed' : 'paused'}.`;
        })
      }
    >
      {queue.paused ? 'Resume' : 'Pause'}
    </button>
  );
}

/** Edit the queue's limits in a dialog. */
export function LimitsButton({ queue }: { queue: QueueOverview }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        class="small"
        aria-label={`Edit limits of queue ${queue.name}`}
        onClick={() => setOpen(true)}
      >
        Edit
      </button>
      {open && <LimitsDialog queue={queue} onClose={() => setOpen(false)} />}
    </>
  );
}

function positive(text: string): number | undefined {
  const value = Number(text);
  return text.trim() !== '' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function LimitsDialog({ queue, onClose }: { queue: QueueOverview; onClose(): void }) {
  const { alias } = useDashboard();
  const { busy, run } = useAction();
  const [concurrency, setConcurrency] = useState(String(queue.limits?.concurrency ?? ''));
  const [max, setMax] = useState(String(queue.limits?.rateLimit?.max ?? ''));
  const [perMs, setPerMs] = useState(String(queue.limits?.rateLimit?.perMs ?? ''));
  const limits: QueueLimits = {};
  const c = positive(concurrency);
  const m = positive(max);
  const p = positive(perMs);
  if (c !== undefined) limits.concurrency = c;
  if (m !== undefined && p !== undefined) limits.rateLimit = { max: m, perMs: p };
  const wanted = limits.concurrency === undefined && !limits.rateLimit ? null : limits;
  const invalid =
    (concurrency.trim() !== '' && c === undefined) ||
    (max.trim() !== '' || perMs.trim() !== '') !== (m !== undefined && p !== undefined);
  return (
    <ConfirmDialog
      title={`Limits of queue ${queue.name}`}
      confirmLabel="Save limits"
      confirmDisabled={busy || invalid}
      onClose={onClose}
      onConfirm={() =>
        void run(async () => {
          // `{}` lifts them (a bare JSON null is not an object, which body parsers refuse).
          await act(`queues/${part(queue.name)}/limits`, { alias }, wanted ?? {}, 'PUT');
          return `Limits of queue ${queue.name}: ${limitsText(wanted)}.`;
        }).then((done) => done && onClose())
      }
    >
      <p>For every pool of this backend at once. Leave a field empty for no limit.</p>
      <div class="fields">
        <label>
          Running at once
          <input
            type="number"
            min="1"
            step="1"
            inputMode="numeric"
            value={concurrency}
            onInput={(event) => setConcurrency(event.currentTarget.value)}
          />
        </label>
        <label>
          Starts at most
          <input
            type="number"
            min="1"
            step="1"
            inputMode="numeric"
            value={max}
            onInput={(event) => setMax(event.currentTarget.value)}
          />
        </label>
        <label>
          per (ms)
          <input
            type="number"
            min="1"
            step="1"
            inputMode="numeric"
            value={perMs}
            onInput={(event) => setPerMs(event.currentTarget.value)}
          />
        </label>
      </div>
      {invalid && (
        <p class="error" role="alert">
          Whole numbers above 0; a rate needs both its count and its window.
        </p>
      )}
      <p>Saving: {limitsText(wanted)}.</p>
    </ConfirmDialog>
  );
}
