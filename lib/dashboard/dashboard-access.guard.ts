import {
  ForbiddenException,
  Inject,
  Injectable,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import { isObservable, lastValueFrom } from 'rxjs';
import { dashboardActRefused, dashboardReadRefused } from './dashboard.messages';
import { dashboardActionOf } from './dashboard-action.decorator';
import type { DashboardAction } from './dashboard-options.interface';
import { crossSiteRefusal } from './cross-site-refusal';
import { DASHBOARD_SETTINGS, type DashboardSettings } from './dashboard-settings';

/** A request as both Express and Fastify give it: its headers are all the dashboard reads. */
interface HeadedRequest {
  readonly headers: IncomingHttpHeaders;
}

/**
 * Runs before every dashboard route: an action must come from the
 * dashboard's own origin (crossSiteRefusal), then the `guards` given and
 * the `authorize` hook decide, for `read` or `act`. A refusal answers 403;
 * an HttpException they throw answers its own status (401).
 *
 * @internal
 */
@Injectable()
export class DashboardAccessGuard implements CanActivate {
  private userGuards: Promise<CanActivate[]> | undefined;

  constructor(
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
    private readonly moduleRef: ModuleRef,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<HeadedRequest>();
    const action = dashboardActionOf(context);
    const refusal = (): ForbiddenException =>
      new ForbiddenException(action === 'act' ? dashboardActRefused() : dashboardReadRefused());
    if (action === 'act') {
      const crossSite = crossSiteRefusal(
        request.headers,
        this.settings.options.trustedOrigins ?? [],
      );
      if (crossSite !== null) throw new ForbiddenException(crossSite);
    }
    for (const guard of await this.guards()) {
      const allowed = guard.canActivate(context);
      if (!(isObservable(allowed) ? await lastValueFrom(allowed) : await allowed)) throw refusal();
    }
    if (!(await this.authorized(request, action))) throw refusal();
    return true;
  }

  /**
   * Whether the `authorize` hook lets `request` act, for the page to show or
   * hide its buttons (a hook that throws says no). Guards are not asked: an
   * action they refuse answers 403 when it is tried.
   */
  async mayAct(request: unknown): Promise<boolean> {
    try {
      return await this.authorized(request, 'act');
    } catch {
      return false;
    }
  }

  private async authorized(request: unknown, action: DashboardAction): Promise<boolean> {
    const { authorize } = this.settings.options;
    return authorize === undefined || (await authorize(request, action)) === true;
  }

  private guards(): Promise<CanActivate[]> {
    this.userGuards ??= Promise.all(
      (this.settings.options.guards ?? []).map((guard) =>
        typeof guard === 'function' ? this.moduleRef.create(guard) : Promise.resolve(guard),
      ),
    );
    return this.userGuards;
  }
}
