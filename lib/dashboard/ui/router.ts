// Hash routes under the page's base: `#/`, `#/queues/<queue>/<segment>`, `#/tasks/<id>`,
// `#/schedules`, `#/pools`; `?alias=` picks the backend, `?task=` / `?id=` filter a list.
import { useEffect, useState } from 'preact/hooks';

import { SEGMENTS, type Segment } from './api-types';

/** A queue's tasks in one segment, of one task name or one id when filtered. */
export interface TaskListRoute {
  view: 'tasks';
  queue: string;
  segment: Segment;
  task?: string;
  id?: string;
}

export type Route =
  | { view: 'overview' }
  | TaskListRoute
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

/** The `#/...` part of a route's address on an alias. */
export function hashOf(route: Route, alias: string | undefined): string {
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

/**
 * A route's address for a link: this document's path and the route's hash.
 * Never a bare `#...`, which would resolve against the page's `<base href>`
 * (the path with a trailing slash) and load the page again when the address
 * has none, as Fastify serves it.
 */
export function href(route: Route, alias: string | undefined): string {
  return `${location.pathname}${hashOf(route, alias)}`;
}

export function navigate(route: Route, alias: string | undefined): void {
  location.hash = hashOf(route, alias);
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
 * Turns a path route under the page's base (`/threadmill/tasks/<id>`, which
 * the server answers with this page too) into its hash route on the base's
 * path (`/threadmill#/tasks/<id>`), so links and reloads stay on one address.
 */
export function normalizeAddress(): void {
  const base = new URL(document.baseURI).pathname;
  const prefix = base.replace(/\/$/, '');
  const path = location.pathname;
  if (path === base || path === prefix || !path.startsWith(base)) return;
  const rest = path.slice(base.length).replace(/\/$/, '');
  const hash = location.hash || (rest ? `#/${rest}${location.search}` : '');
  history.replaceState(null, '', `${prefix}${hash}`);
}
