import { SetMetadata, type ExecutionContext } from '@nestjs/common';

import type { DashboardAction } from './dashboard-options.interface';

const DASHBOARD_ACTION = 'threadmill:dashboard-action';

/** Marks a dashboard route as one that acts (a route without it reads). */
export const Acts = (): MethodDecorator => SetMetadata(DASHBOARD_ACTION, 'act');

/**
 * Whether the dashboard route a guard guards reads or acts, for guards
 * given in the `guards` option.
 *
 * @example
 * ```ts
 * canActivate(context: ExecutionContext): boolean {
 *   return dashboardActionOf(context) === 'read' || isAdmin(context.switchToHttp().getRequest());
 * }
 * ```
 * @publicApi
 */
export function dashboardActionOf(context: ExecutionContext): DashboardAction {
  const marked: unknown = Reflect.getMetadata(DASHBOARD_ACTION, context.getHandler());
  return marked === 'act' ? 'act' : 'read';
}
