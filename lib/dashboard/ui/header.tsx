import type { LiveState } from './live-overview';
import { useDashboard } from './context';
import { href, navigate, type Route } from './router';

const LIVE_TEXT: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  polling: 'Refreshing every few seconds',
  unavailable: 'Store not answering: counts may be old',
};

/** The title, the alias picker when there are several, the views and the live state. */
export function Header({ route, live }: { route: Route; live: LiveState }) {
  const { meta, alias } = useDashboard();
  const links: { label: string; route: Route; current: boolean }[] = [
    {
      label: 'Overview',
      route: { view: 'overview' },
      current: route.view === 'overview' || route.view === 'tasks' || route.view === 'task',
    },
    { label: 'Schedules', route: { view: 'schedules' }, current: route.view === 'schedules' },
    { label: 'Pools', route: { view: 'pools' }, current: route.view === 'pools' },
  ];
  return (
    <header class="top">
      <h1>
        <a href={href({ view: 'overview' }, alias)}>Threadmill</a>
      </h1>
      <nav aria-label="Views">
        <ul>
          {links.map((link) => (
            <li key={link.label}>
              <a href={href(link.route, alias)} aria-current={link.current ? 'page' : undefined}>
                {link.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="top-end">
        {meta.aliases.length > 1 ? (
          <label class="alias">
            Backend{' '}
            <select
              value={alias}
              onChange={(event) =>
                navigate(
                  route.view === 'schedules' || route.view === 'pools'
                    ? route
                    : { view: 'overview' },
                  event.currentTarget.value,
                )
              }
            >
              {meta.aliases.map((a) => (
                <option key={a.alias} value={a.alias}>
                  {a.alias} ({a.kind})
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span class="alias">
            Backend <strong>{alias}</strong>
          </span>
        )}
        {!meta.canAct && <span class="badge">Read-only</span>}
        <span class={`live live-${live}`} role="status">
          {LIVE_TEXT[live]}
        </span>
      </div>
    </header>
  );
}
