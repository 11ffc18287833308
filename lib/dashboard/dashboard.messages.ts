/** Text of the web dashboard (ThreadmillDashboardModule), written once. */
import { shown, shownList } from '../core/shown';

export const dashboardAccessRuleMissing = (): string =>
  'ThreadmillDashboardModule.forRoot has no access rule, so it would let anyone who reaches the ' +
  'port read and act on your tasks. Give `authorize: (request, action) => boolean` (action is ' +
  "'read' or 'act'), or `guards: [YourAuthGuard]`, or `open: true` for a dashboard only you can " +
  'reach (local development). See docs/dashboard.md.';

export const invalidDashboardOption = (option: string, problem: string): string =>
  `ThreadmillDashboardModule.forRoot: option ${shown(option)} ${problem}.`;

export const dashboardAssetsMissing = (): string =>
  "The dashboard's page is not built: its assets are missing. Run `npm run build` in the " +
  'Threadmill checkout (an installed package ships them); the API under /api still answers.';

export const dashboardAssetsMissingAt = (dir: string): string =>
  `${dashboardAssetsMissing()} Looked in ${dir}.`;

export const dashboardAssetNotFound = (file: string): string =>
  `The dashboard has no asset ${shown(file)}.`;

export const dashboardRouteNotFound = (path: string): string =>
  `The dashboard has no route ${shown(path)}.`;

export const unknownDashboardAlias = (alias: string, aliases: readonly string[]): string =>
  `The dashboard shows no backend ${shown(alias)} (it shows: ${shownList(aliases)}).`;

export const invalidDashboardInput = (name: string, expected: string): string =>
  `${shown(name)} ${expected}.`;

export const dashboardReadRefused = (): string =>
  'You may not read this dashboard (its authorize rule or guards refused the request).';

export const dashboardActRefused = (): string =>
  'You may look but not act on this dashboard (its authorize rule or guards refused the action).';

export const dashboardCsrfHeaderMissing = (header: string): string =>
  `Refused: an action needs the header "${header}: 1", which the dashboard's own page sends.`;

export const dashboardCrossSite = (seen: string): string =>
  `Refused: an action must come from the dashboard's own origin (the request came from ${seen}).`;

export const dashboardStateConflict = (id: string, outcome: string): string =>
  `Task ${id}: nothing done (${outcome}).`;

export const dashboardFailed = (): string =>
  "The dashboard could not answer this request; the server's log says why.";

export const dashboardRequestFailedLog = (method: string, url: string): string =>
  `The dashboard's ${method} ${url} failed`;

export const dashboardReadFailedLog = (what: string, alias: string): string =>
  `The dashboard's ${what} of backend ${shown(alias)} could not be read`;
