import { startPostgresServer } from '../helpers/postgres-server';
import { startRedisServer } from '../helpers/redis-server';
import { buildDashboardPage } from './build-dashboard-page';
import { buildSampleCli } from './build-sample-cli';
import globalTeardown, { failureOf, type RunServers } from './global-teardown';

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

/** REDIS_URL, or a private redis-server whose url it becomes. */
async function startRedis(): Promise<void> {
  if (process.env.REDIS_URL) return;
  const server = await startRedisServer();
  (globalThis as RunServers).__threadmillRedis = server;
  process.env.REDIS_URL = server.url;
}

/** PG_URL, or a private Postgres cluster whose url it becomes. */
async function startPostgres(): Promise<void> {
  if (process.env.PG_URL) return;
  const server = await startPostgresServer();
  (globalThis as RunServers).__threadmillPostgres = server;
  process.env.PG_URL = server.url;
}

async function build(): Promise<void> {
  await buildDashboardPage();
  if (runsE2e(process.argv.slice(2))) await buildSampleCli();
}

/**
 * One Redis and one Postgres for the whole run: REDIS_URL and PG_URL when the
 * caller set them, otherwise a private redis-server and a private Postgres
 * cluster on free loopback ports (removed in global-teardown). Tests never
 * flush or drop what they did not create: each isolates itself by alias on
 * Redis and by schema on Postgres. When e2e suites may run, the CLIs they
 * spawn are compiled here, once. The dashboard's page is built every time.
 * The servers start while the builds run; if anything fails, the servers
 * that did start are removed before the error is thrown.
 */
export default async function globalSetup(): Promise<void> {
  const failure = failureOf(await Promise.allSettled([startRedis(), startPostgres(), build()]));
  if (!failure) return;
  // What did start is removed; the error thrown names the cleanup's failure too, if any.
  throw failureOf(await Promise.allSettled([Promise.reject(failure), globalTeardown()])) ?? failure;
}
