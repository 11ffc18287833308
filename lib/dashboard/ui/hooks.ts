import { useEffect, useRef, useState } from 'preact/hooks';

import { errorText } from './api';
import { useDashboard } from './context';

/** Whether the page is visible (not a background tab). */
export function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState !== 'hidden');
  useEffect(() => {
    const follow = (): void => setVisible(document.visibilityState !== 'hidden');
    document.addEventListener('visibilitychange', follow);
    return () => document.removeEventListener('visibilitychange', follow);
  }, []);
  return visible;
}

export interface Polled<T> {
  data: T | undefined;
  error: string | undefined;
  /** When `data` was read. */
  at: number | undefined;
}

/**
 * `load()` now and every `intervalMs` while the page is visible, again at once
 * after an action; `key` names what is loaded (a new key forgets the old data).
 */
export function usePolled<T>(key: string, load: () => Promise<T>, intervalMs: number): Polled<T> {
  const visible = usePageVisible();
  const { refreshTick } = useDashboard();
  const loader = useRef(load);
  loader.current = load;
  const [state, setState] = useState<Polled<T> & { key: string }>({
    key,
    data: undefined,
    error: undefined,
    at: undefined,
  });
  useEffect(() => {
    if (!visible) return;
    let stopped = false;
    let timer: number | undefined;
    const tick = async (): Promise<void> => {
      try {
        const data = await loader.current();
        if (!stopped) setState({ key, data, error: undefined, at: Date.now() });
      } catch (error) {
        if (!stopped) {
          setState((old) => ({
            ...(old.key === key ? old : { data: undefined, at: undefined }),
            key,
            error: errorText(error),
          }));
        }
      }
      if (!stopped) timer = window.setTimeout(() => void tick(), intervalMs);
    };
    void tick();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [key, visible, refreshTick, intervalMs]);
  return state.key === key ? state : { data: undefined, error: undefined, at: undefined };
}

/** A clock that ticks every `ms`, for ages shown relative to now. */
export function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(timer);
  }, [ms]);
  return now;
}

/** State that starts over at `initial` whenever `key` changes (a new filter, a new page). */
export function useKeyedState<T>(
  key: string,
  initial: T,
): [T, (update: T | ((old: T) => T)) => void] {
  const [state, setState] = useState({ key, value: initial });
  const value = state.key === key ? state.value : initial;
  const set = (update: T | ((old: T) => T)): void =>
    setState((old) => {
      const current = old.key === key ? old.value : initial;
      const next = typeof update === 'function' ? (update as (old: T) => T)(current) : update;
      return { key, value: next };
    });
  return [value, set];
}
