import { useEffect, useState } from 'preact/hooks';

import { apiUrl, getJson } from './api';
import type { Overview } from './api-types';
import { usePageVisible } from './hooks';

export type LiveState = 'connecting' | 'live' | 'polling' | 'unavailable';

/** The later of two overviews (a read and a stream event may cross). */
function later(old: Overview | null, next: Overview): Overview {
  return old && old.alias === next.alias && old.at > next.at ? old : next;
}

/**
 * The overview of `alias`, live: read once at once, then from the server's
 * event stream (`overview` events); polled every `refreshMs` if the stream is
 * refused. Nothing is open while the page is hidden. `tick` reads it again.
 * The server sends `unavailable` instead when the store did not answer.
 */
export function useLiveOverview(
  alias: string,
  refreshMs: number,
  tick: number,
): { overview: Overview | null; state: LiveState } {
  const visible = usePageVisible();
  const [overview, setOverview] = useState<Overview | null>(null);
  const [state, setState] = useState<LiveState>('connecting');

  useEffect(() => setOverview(null), [alias]);

  useEffect(() => {
    if (!visible) return;
    let stopped = false;
    let timer: number | undefined;
    const read = async (): Promise<void> => {
      try {
        const next = await getJson<Overview>('overview', { alias });
        if (!stopped) setOverview((old) => later(old, next));
      } catch {
        // The stream or the next poll tells.
      }
    };
    void read();
    const poll = (): void => {
      setState('polling');
      timer = window.setInterval(() => void read(), refreshMs);
    };
    if (typeof EventSource === 'undefined') {
      poll();
      return () => window.clearInterval(timer);
    }
    setState('connecting');
    const stream = new EventSource(apiUrl('stream', { alias }));
    stream.addEventListener('overview', (event) => {
      const next = JSON.parse((event as MessageEvent<string>).data) as Overview;
      setOverview((old) => later(old, next));
      setState('live');
    });
    // The server could not read the store this refresh: the last counts stay, marked as such.
    stream.addEventListener('unavailable', () => setState('unavailable'));
    stream.onopen = () => setState('live');
    stream.onerror = () => {
      if (stream.readyState === EventSource.CLOSED) {
        if (!stopped) poll();
      } else {
        setState('connecting');
      }
    };
    return () => {
      stopped = true;
      stream.close();
      window.clearInterval(timer);
    };
  }, [alias, visible, refreshMs]);

  useEffect(() => {
    if (tick === 0 || !visible) return;
    let stopped = false;
    getJson<Overview>('overview', { alias }).then(
      (next) => !stopped && setOverview((old) => later(old, next)),
      () => undefined,
    );
    return () => {
      stopped = true;
    };
  }, [tick]);

  return { overview, state };
}
