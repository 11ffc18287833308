// `@threadmill/nestjs/dashboard`: the web dashboard, mounted in a Nest app
// (Express or Fastify) beside a global ThreadmillModule.
export { ThreadmillDashboardModule } from './threadmill-dashboard.module';
export { dashboardActionOf } from './dashboard-action.decorator';
export type {
  DashboardAction,
  DashboardRedaction,
  DashboardTaskPart,
  ThreadmillDashboardOptions,
} from './dashboard-options.interface';
