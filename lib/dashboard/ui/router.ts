// Hash routes under the page's base: `#/`, `#/queues/<queue>/<segment>`, `#/tasks/<id>`,
// `#/schedules`, `#/pools`; `?alias=` picks the backend, `?task=` / `?id=` filter a list.
import { useEffect, useState } from 'preact/hooks';

import { SEGMENTS, type Segment } from './api-types';

export type Route =
  | { view: 'overview' }
  | { view: 'tasks'; queue: string; segment: Segment; task?: string; id?: string }
  | { view: 'task'; id: string }
  | { view: 'schedules' }
  | { view: 'pools' }
  | { view: 'missing'; path: string };

export interface Location {
  route: Route;
  /** The alias the address names; absent: the first one. */
  alias?: string;
}

export function parseHash(hash: string): Location {
  const text = hash.replace(/^#\/?/, '');
  const [path, search = ''] = text.split('?', 2);
  const query = new URLSearchParams(search);
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const alias = query.get('alias') ?? undefined;
  const route = routeOf(parts, query);
  return alias === undefined ? { route } : { route, alias };
}

function routeOf(parts: string[], query: URLSearchParams): Route {
  const [first, second, third] = parts;
  if (first === undefined) return { view: 'overview' };
  if (first === 'queues' && second !== undefined && parts.length <= 3) {
    const segment = (third ?? 'ready') as Segment;
    if (!SEGMENTS.includes(segment)) return { view: 'missing', path: parts.join('/') };
    const task = query.get('task');
    const id = query.get('id');
    return {
      view: 'tasks',
      queue: second,
      segment,
      ...(task ? { task } : {}),
      ...(id ? { id } : {}),
    };
  }
  if (first === 'tasks' && second !== undefined && parts.length === 2) {
    return { view: 'task', id: second };
  }
  if (first === 'schedules' && parts.length === 1) return { view: 'schedules' };
  if (first === 'pools' && parts.length === 1) return { view: 'pools' };
  return { view: 'missing', path: parts.join('/') };
}

/** The `#/...` address of a route on an alias. */
export function href(route: Route, alias: string | undefined): string {
  const query = new URLSearchParams();
  let path = '';
  switch (route.view) {
    case 'overview':
      path = '';
      break;
    case 'tasks':
      path = `queues/${encodeURIComponent(route.queue)}/${route.segment}`;
      if (route.task) query.set('task', route.task);
      if (route.id) query.set('id', route.id);
      break;
    case 'task':
      path = `tasks/${encodeURIComponent(route.id)}`;
      break;
    case 'schedules':
    case 'pools':
      path = route.view;
      break;
    case 'missing':
      path = route.path;
      break;
  }
  if (alias !== undefined) query.set('alias', alias);
  const search = query.toString();
  return `#/${path}${search ? `?${search}` : ''}`;
}

export function navigate(route: Route, alias: string | undefined): void {
  location.hash = href(route, alias);
}

/** The current location, following hash changes. */
export function useLocation(): Location {
  const [current, setCurrent] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const follow = (): void => setCurrent(parseHash(location.hash));
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  return current;
}

/**
 * Puts the page's address at its base, so `#...` links stay on this page: an
 * address without the trailing slash (`/threadmill`), or a path route under the
 * base (`/threadmill/tasks/<id>`), becomes the matching hash route.
 */
export function normalizeAddress(): void {
  const base = new URL(document.baseURI);
  if (location.pathname === base.pathname) return;
  const prefix = base.pathname.replace(/\/$/, '');
  let hash = location.hash;
  if (!hash && location.pathname.startsWith(`${prefix}/`)) {
    const rest = location.pathname.slice(prefix.length + 1);
    if (rest) hash = `#/${rest}${location.search}`;
  }
  history.replaceState(null, '', `${base.pathname}${hash}`);
}
