import { dashboardAccessRuleMissing, invalidDashboardOption } from './dashboard.messages';
import { DashboardAccessRuleMissingError } from '../core/errors/dashboard-access-rule-missing.error';
import { InvalidDashboardOptionError } from '../core/errors/invalid-dashboard-option.error';
import type { DashboardTaskPart, ThreadmillDashboardOptions } from './dashboard-options.interface';

/** Injection token of the dashboard's checked settings. */
export const DASHBOARD_SETTINGS = Symbol('THREADMILL_DASHBOARD_SETTINGS');

/** The header every action must carry (a page of another site cannot send it without CORS). */
export const CSRF_HEADER = 'x-threadmill-dashboard';

export const DEFAULT_DASHBOARD_PATH = '/threadmill';
const DEFAULT_REFRESH_MS = 2000;
const MIN_REFRESH_MS = 250;
const PATH_PATTERN = /^(\/[A-Za-z0-9._~-]+)+$/;
const PARTS: readonly DashboardTaskPart[] = ['args', 'result', 'errors'];

/** The dashboard's options, checked, with their defaults. */
export interface DashboardSettings {
  readonly path: string;
  readonly refreshMs: number;
  readonly options: ThreadmillDashboardOptions;
  /** The parts of tasks of this name never sent to the page. */
  hiddenParts(taskName: string): ReadonlySet<DashboardTaskPart>;
}

/** `/threadmill/` and `threadmill` are both `/threadmill`; the path is not checked here. */
export function normalizeDashboardPath(path: string | undefined): string {
  const given = path ?? DEFAULT_DASHBOARD_PATH;
  if (typeof given !== 'string') return given;
  return `/${given.replace(/^\/+|\/+$/g, '')}`;
}

/**
 * Checks the options at boot.
 *
 * @throws DashboardAccessRuleMissingError without `authorize`, `guards` or `open: true`.
 * @throws InvalidDashboardOptionError naming the option at fault.
 */
export function dashboardSettings(options: ThreadmillDashboardOptions): DashboardSettings {
  const fail = (option: string, problem: string): never => {
    throw new InvalidDashboardOptionError(invalidDashboardOption(option, problem));
  };
  const path = normalizeDashboardPath(options.path);
  if (typeof path !== 'string' || !PATH_PATTERN.test(path)) {
    fail('path', 'must be a URL path such as "/threadmill" (letters, digits, ".", "_", "~", "-")');
  }
  for (const name of ['authorize', 'identify'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      fail(name, 'must be a function of the request');
    }
  }
  if (options.guards !== undefined && !Array.isArray(options.guards)) {
    fail('guards', 'must be an array of guard classes or instances');
  }
  if (options.open !== undefined && typeof options.open !== 'boolean') {
    fail('open', 'must be true or false');
  }
  const refreshMs = options.refreshMs ?? DEFAULT_REFRESH_MS;
  if (!Number.isInteger(refreshMs) || refreshMs < MIN_REFRESH_MS) {
    fail('refreshMs', `must be a whole number of milliseconds of at least ${MIN_REFRESH_MS}`);
  }
  const hasRule = options.authorize !== undefined || (options.guards?.length ?? 0) > 0;
  if (!hasRule && options.open !== true) {
    throw new DashboardAccessRuleMissingError(dashboardAccessRuleMissing());
  }
  const redact = options.redact;
  if (redact !== undefined && typeof redact !== 'function' && typeof redact !== 'object') {
    fail('redact', "must map task names to parts ('args', 'result', 'errors') or be a function");
  }
  return {
    path,
    refreshMs,
    options,
    hiddenParts: (taskName) => {
      const listed: unknown =
        typeof redact === 'function'
          ? redact(taskName)
          : redact !== undefined && Object.hasOwn(redact, taskName)
            ? redact[taskName]
            : [];
      const given: readonly unknown[] = Array.isArray(listed) ? listed : [];
      return new Set(PARTS.filter((part) => given.includes(part)));
    },
  };
}
