import { Inject, Injectable } from '@nestjs/common';
import { EventStream } from '../core/event-stream';
import { DASHBOARD_SETTINGS, type DashboardSettings } from './dashboard-settings';

/**
 * Tells the event stream of every action taken through the dashboard
 * (`dashboardAction`): who (the `identify` option), what, on what, how many.
 *
 * @internal
 */
@Injectable()
export class DashboardActionLog {
  constructor(
    private readonly stream: EventStream,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
  ) {}

  /** Emits the action and returns its count. */
  record(request: unknown, action: string, alias: string, target: string, count: number): number {
    const who = this.settings.options.identify?.(request);
    this.stream.emit('dashboardAction', { who, action, alias, backend: alias, target, count });
    return count;
  }
}
