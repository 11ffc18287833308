import { useEffect, useMemo, useRef, useState } from 'preact/hooks';

import { errorText, getJson, setCsrfHeader } from './api';
import type { Meta } from './api-types';
import { DashboardContext, type Dashboard } from './context';
import { Header } from './header';
import { useLiveOverview } from './live-overview';
import { OverviewView } from './overview';
import { PoolsView } from './pools';
import { href, useLocation, type Route } from './router';
import { SchedulesView } from './schedules';
import { TaskDetailView } from './task-detail';
import { TaskListView } from './task-list';

/** The page: the server's meta first (who may do what, which aliases), then the dashboard. */
export function App() {
  const [meta, setMeta] = useState<Meta | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    getJson<Meta>('meta').then(
      (read) => {
        setCsrfHeader(read.csrfHeader);
        setMeta(read);
      },
      (error) => setFailure(errorText(error)),
    );
  }, []);
  if (failure) {
    return (
      <main class="page" id="main">
        <h1>Threadmill</h1>
        <p role="alert" class="error">
          The dashboard could not start: {failure}
        </p>
      </main>
    );
  }
  if (!meta) {
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  }
  return <Shell meta={meta} />;
}

interface Message {
  text: string;
  kind: 'status' | 'error';
}

function Shell({ meta }: { meta: Meta }) {
  const { route, alias: named } = useLocation();
  const alias = meta.aliases.some((a) => a.alias === named)
    ? named!
    : (meta.aliases[0]?.alias ?? 'default');
  const [tick, setTick] = useState(0);
  const [message, setMessage] = useState<Message | null>(null);
  const live = useLiveOverview(alias, meta.refreshMs, tick);
  const main = useRef<HTMLElement>(null);

  const dashboard = useMemo<Dashboard>(
    () => ({
      meta,
      alias,
      overview: live.overview,
      refreshTick: tick,
      refresh: () => setTick((value) => value + 1),
      announce: (text, kind = 'status') => setMessage({ text, kind }),
    }),
    [meta, alias, live.overview, tick],
  );

  // A message stays 10 s; a newer one replaces it.
  useEffect(() => {
    if (!message) return;
    const timer = window.setTimeout(() => setMessage(null), 10_000);
    return () => window.clearTimeout(timer);
  }, [message]);

  // After a navigation, focus goes to the new view's heading (not on the first load).
  const routeKey = JSON.stringify(route) + alias;
  const firstRoute = useRef(routeKey);
  useEffect(() => {
    if (routeKey === firstRoute.current) return;
    firstRoute.current = '';
    main.current?.querySelector<HTMLElement>('h2')?.focus();
  }, [routeKey]);

  // `/` jumps to the view's search field.
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, [contenteditable]')) return;
      const search = document.querySelector<HTMLInputElement>('[data-search]');
      if (!search) return;
      event.preventDefault();
      search.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  return (
    <DashboardContext.Provider value={dashboard}>
      <button class="skip" type="button" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <Header route={route} live={live.state} />
      <main id="main" ref={main} tabIndex={-1}>
        <View route={route} alias={alias} />
      </main>
      <div class="messages">
        <p role="status" aria-live="polite" class="message">
          {message?.kind === 'status' ? message.text : ''}
        </p>
        <p role="alert" class="message error">
          {message?.kind === 'error' ? message.text : ''}
        </p>
      </div>
    </DashboardContext.Provider>
  );
}

function View({ route, alias }: { route: Route; alias: string }) {
  switch (route.view) {
    case 'overview':
      return <OverviewView />;
    case 'tasks':
      return <TaskListView route={route} />;
    case 'task':
      return <TaskDetailView id={route.id} />;
    case 'schedules':
      return <SchedulesView />;
    case 'pools':
      return <PoolsView />;
    case 'missing':
      return (
        <section>
          <h2 tabIndex={-1}>Not found</h2>
          <p>
            Nothing is at <code>{route.path}</code>.{' '}
            <a href={href({ view: 'overview' }, alias)}>Back to the overview</a>.
          </p>
        </section>
      );
  }
}
