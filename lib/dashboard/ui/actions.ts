import { useState } from 'preact/hooks';

import { errorText } from './api';
import { useDashboard } from './context';

/**
 * Runs an action (a request that changes something): its message, or its
 * error, goes to the live region, and every view reads again afterwards.
 * `busy` is true meanwhile, so its buttons can be disabled.
 */
export function useAction(): {
  busy: boolean;
  run: (action: () => Promise<string>) => Promise<boolean>;
} {
  const { announce, refresh } = useDashboard();
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<string>): Promise<boolean> => {
    setBusy(true);
    try {
      announce(await action());
      return true;
    } catch (error) {
      announce(errorText(error), 'error');
      return false;
    } finally {
      setBusy(false);
      refresh();
    }
  };
  return { busy, run };
}

/** `1 task`, `3 tasks`. */
export function tasks(count: number): string {
  return `${count} task${count === 1 ? '' : 's'}`;
}
