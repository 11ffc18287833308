import { startRedisServer } from '../helpers/redis-server';
import { buildDashboardPage } from './build-dashboard-page';
import { buildSampleCli } from './build-sample-cli';

/**
 * Whether this jest invocation may run e2e or chaos suites (they spawn the
 * compiled CLIs): unless projects are selected and none of them is e2e or
 * chaos. Path patterns are not judged: a stale build would be worse than an
 * incremental one that finds nothing to do.
 */
function runsE2e(argv: readonly string[]): boolean {
  const select = argv.indexOf('--selectProjects');
  if (select === -1) return true;
  const projects: string[] = [];
  for (const arg of argv.slice(select + 1)) {
    if (arg.startsWith('-')) break;
    projects.push(arg);
  }
  return projects.includes('e2e') || projects.includes('chaos');
}

/**
 * One Redis for the whole run: REDIS_URL when the caller set one, otherwise a
 * private redis-server on a free loopback port (stopped in global-teardown).
 * Tests never flush it: each isolates itself by alias. When e2e suites may
 * run, the CLIs they spawn are compiled here, once. The dashboard's page is
 * built every time.
 */
export default async function globalSetup(): Promise<void> {
  await buildDashboardPage();
  if (runsE2e(process.argv.slice(2))) await buildSampleCli();
  if (process.env.REDIS_URL) return;
  const server = await startRedisServer();
  process.env.REDIS_URL = server.url;
  (globalThis as { __threadmillRedis?: typeof server }).__threadmillRedis = server;
}
