import { join } from 'node:path';

import Redis from 'ioredis';

import { SAMPLE_DIST } from '../setup/build-sample-cli';
import { startNodeProcess, type RunningCli } from '../helpers/cli-process';
import { freePort } from '../helpers/free-port';
import { removeAliasKeys } from '../helpers/redis-cleanup';
import { testAlias } from '../helpers/test-alias';
import { testRedisUrl } from '../helpers/test-redis-url';
import { waitFor } from '../helpers/wait-for';

// The sample web app and a worker pool as real processes on the run's Redis,
// probed over real HTTP the way an orchestrator would.

const WEB = join(SAMPLE_DIST, 'sample', 'src', 'main.js');
const WORKER = join(SAMPLE_DIST, 'sample', 'src', 'worker.js');
const MAINTENANCE_INTERVAL_MS = 1000;

interface HealthDetails {
  status: string;
  backend: string;
  message?: string;
  heartbeatAgeMs: number | null;
  queues: Record<string, Record<string, number>>;
}

interface HealthBody {
  status: string;
  info: Record<string, HealthDetails>;
  error: Record<string, HealthDetails>;
}

describe('health and the sample web app (e2e: real HTTP, pool and Redis)', () => {
  jest.setTimeout(60_000);
  const alias = testAlias();
  const started: RunningCli[] = [];
  let base: string;
  let thresholdBase: string;
  let pool: RunningCli;
  let poolHealthUrl: string;
  let redis: Redis;

  function start(script: string, args: string[], env: Record<string, string>): RunningCli {
    return startNodeProcess(script, args, started, {
      env: {
        REDIS_URL: testRedisUrl(),
        THREADMILL_ALIAS: alias,
        THREADMILL_MAINTENANCE_INTERVAL_MS: String(MAINTENANCE_INTERVAL_MS),
        ...env,
      },
    });
  }

  async function startWeb(env: Record<string, string> = {}): Promise<string> {
    const port = await freePort();
    const web = start(WEB, [], { PORT: String(port), ...env });
    const url = `http://127.0.0.1:${port}`;
    await waitFor(() => fetch(`${url}/health/live`).then((r) => r.ok), {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: `the web app on ${url} (output: ${web.output()})`,
    });
    return url;
  }

  const health = async (url: string) => {
    const response = await fetch(`${url}/health`);
    return { status: response.status, body: (await response.json()) as HealthBody };
  };

  const post = (path: string, body: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

  beforeAll(async () => {
    redis = new Redis(testRedisUrl());
    [base, thresholdBase] = await Promise.all([
      startWeb(),
      startWeb({ THREADMILL_HEALTH_MAX_READY: '2' }),
    ]);
    // The pool serves only `default`, so tasks on `emails` stay READY for the threshold test.
    const poolHealthPort = await freePort();
    poolHealthUrl = `http://127.0.0.1:${poolHealthPort}/health`;
    pool = start(
      WORKER,
      [
        ...['worker', '--alias', alias, '--processes', '1', '--queues', 'default'],
        ...['--health-port', String(poolHealthPort)],
      ],
      {},
    );
  }, 60_000);

  afterAll(async () => {
    for (const child of started) await child.killGroup();
    await removeAliasKeys(redis, alias);
    await redis.quit();
  });

  it('reports 200 with every queue counted while a pool runs', async () => {
    const { body } = await waitFor(
      async () => {
        const result = await health(base);
        return result.status === 200 ? result : null;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'GET /health to turn 200' },
    );
    expect(body.status).toBe('ok');
    expect(body.info.threadmill).toMatchObject({
      status: 'up',
      backend: alias,
      queues: {
        default: { ready: expect.any(Number), running: expect.any(Number) },
        emails: { failed: expect.any(Number), ingress: expect.any(Number) },
      },
    });
    expect(body.info.threadmill.heartbeatAgeMs).toBeLessThan(3 * MAINTENANCE_INTERVAL_MS);
  });

  it("serves the pool's own liveness endpoint with --health-port", async () => {
    const report = await waitFor(
      async () => {
        const response = await fetch(poolHealthUrl);
        return response.status === 200
          ? ((await response.json()) as Record<string, unknown>)
          : null;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the pool health endpoint to answer 200' },
    );
    expect(report).toMatchObject({
      status: 'up',
      reasons: [],
      childrenAlive: 1,
      childrenExpected: 1,
    });
  });

  it('round-trips a task enqueued over HTTP to SUCCESSFUL', async () => {
    const response = await post('/tasks/sample.echo', JSON.stringify({ args: [1, 'x'] }));
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    const result = await waitFor(
      async () => {
        const body = (await (await fetch(`${base}/tasks/${id}`)).json()) as Record<string, unknown>;
        return body.status === 'SUCCESSFUL' ? body : null;
      },
      { what: `task ${id} to succeed` },
    );
    expect(result).toMatchObject({ id, args: [1, 'x'], returnValue: [1, 'x'], errors: [] });
    expect(result.workerIds).toHaveLength(1);
  });

  it.each([
    ['a body that is not JSON', '{nope', /JSON/],
    ['args that are not an array', '{"args":"x"}', /"args" must be a JSON array/],
    ['an unknown field', '{"args":[],"colour":"red"}', /Unknown field\(s\) "colour"/],
    ['a priority out of range', '{"args":[],"priority":101}', /priority 101 is invalid/],
    ['a runAfter that is no date', '{"args":[],"runAfter":"soon"}', /"runAfter" must be an ISO/],
    ['a queue the backend lacks', '{"args":[],"queue":"nope"}', /queue "nope" is not configured/],
    ['a key that is no string', '{"args":[],"key":7}', /"key" must be a string/],
    ['a key ids cannot have', '{"args":[],"key":"a b"}', /unique key "a b" is invalid/],
  ])('answers 400 with the reason for %s', async (_label, body, reason) => {
    const response = await post('/tasks/sample.echo', body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(reason);
  });

  it('answers a body with a key with the task that holds it, saying whether it was made', async () => {
    // Deferred for years, so no worker ends it (which frees the key) between the two requests.
    const body = JSON.stringify({ args: ['x'], key: 'order-7', runAfter: '2099-01-01T00:00:00Z' });
    const first = (await (await post('/tasks/sample.echo', body)).json()) as Record<
      string,
      unknown
    >;
    const second = await post('/tasks/sample.echo', body);
    expect(second.status).toBe(202);
    expect(first.created).toBe(true);
    expect(await second.json()).toEqual({ id: first.id, created: false });
  });

  it('answers 400 for a task name nobody registered, and 404 for an unknown id', async () => {
    const unknownTask = await post('/tasks/sample.nope', '{"args":[]}');
    expect(unknownTask.status).toBe(400);
    expect(((await unknownTask.json()) as { message: string }).message).toContain(
      'No @Task named "sample.nope"',
    );
    const unknownId = await fetch(`${base}/tasks/no-such-id`);
    expect(unknownId.status).toBe(404);
  });

  it('turns 503 when a queue crosses its threshold, naming queue and limit', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await post('/tasks/sample.echo', '{"args":[],"queue":"emails"}');
      expect(response.status).toBe(202);
    }
    const { status, body } = await health(thresholdBase);
    expect(status).toBe(503);
    expect(body.error.threadmill.message).toContain(
      'Queue "emails": maxReady is 3, above the limit of 2.',
    );
    expect((await health(base)).status).toBe(200);
  });

  it('turns 503 naming the maintenance pass within three maintenance intervals after the pool stops', async () => {
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
    await expect(fetch(poolHealthUrl)).rejects.toThrow();
    const stoppedAt = Date.now();
    const { body } = await waitFor(
      async () => {
        const result = await health(base);
        return result.status === 503 ? result : null;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'GET /health to turn 503' },
    );
    expect(Date.now() - stoppedAt).toBeLessThan(3 * MAINTENANCE_INTERVAL_MS + 1500);
    expect(body.error.threadmill.message).toMatch(/the last maintenance pass is \d+ ms old/);
    expect(JSON.stringify(body)).not.toContain('redis://');
  });
});
