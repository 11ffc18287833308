import type { CanActivate, Type } from '@nestjs/common';

/**
 * What a dashboard request wants: to look (`read`: the page, its API reads
 * and the live stream) or to change something (`act`: cancel, retry,
 * remove, pause, resume, limits, run a schedule).
 *
 * @publicApi
 */
export type DashboardAction = 'read' | 'act';

/**
 * The parts of a task the dashboard may show, each of which `redact` can hide.
 *
 * @publicApi
 */
export type DashboardTaskPart = 'args' | 'result' | 'errors';

/**
 * Which parts of a task to hide, per task name: a map (`{ 'mail.send': ['args'] }`)
 * or a function of the task name.
 *
 * @publicApi
 */
export type DashboardRedaction =
  | Readonly<Record<string, readonly DashboardTaskPart[]>>
  | ((taskName: string) => readonly DashboardTaskPart[]);

/**
 * Options of `ThreadmillDashboardModule.forRoot`. One access rule is
 * required: `authorize`, `guards`, or `open: true` said explicitly.
 *
 * @example
 * ```ts
 * ThreadmillDashboardModule.forRoot({
 *   path: '/threadmill',
 *   authorize: (request, action) => isAdmin(request) || action === 'read',
 * });
 * ```
 * @publicApi
 */
export interface ThreadmillDashboardOptions {
  /** Where it is mounted; default `/threadmill`. */
  path?: string;
  /**
   * Whether `request` (Express's or Fastify's, as your app has it) may
   * `read` or `act`. False answers 403; throw an HttpException (such as
   * UnauthorizedException) to answer its own status (401).
   */
  authorize?: (request: unknown, action: DashboardAction) => boolean | Promise<boolean>;
  /**
   * Nest guards run before every dashboard route (classes are built with
   * the dashboard module's injector, instances used as they are);
   * `dashboardActionOf(context)` tells them whether it reads or acts.
   */
  guards?: readonly (Type<CanActivate> | CanActivate)[];
  /** Serves it with no access rule at all: only where nobody else can reach the port. */
  open?: boolean;
  /** Who made an action's request, for the action log line; undefined names no one. */
  identify?: (request: unknown) => string | undefined;
  /** Task parts never sent to the page, per task name. */
  redact?: DashboardRedaction;
  /** How often the overview refreshes (ms); default 2000. */
  refreshMs?: number;
  /** The backend aliases it shows; default every configured one. */
  aliases?: readonly string[];
  /**
   * Origins (`https://admin.example.com`) an action may come from besides
   * the dashboard's own host, such as a proxy's public name when it
   * rewrites the Host header.
   */
  trustedOrigins?: readonly string[];
}
