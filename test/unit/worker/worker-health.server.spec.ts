import {
  assessPoolHealth,
  WorkerHealthServer,
} from '../../../lib/worker/pool/worker-health.server';
import type { PoolHealth } from '../../../lib/worker/pool/worker-pool.deps';
import { storeHealth } from '../../../lib/core/store-condition';

const NOW = 1_000_000;
const healthy: PoolHealth = {
  stopping: false,
  childrenAlive: 2,
  childrenExpected: 2,
  lastMaintenancePassAt: NOW - 500,
  maintenanceIntervalMs: 1000,
  done: 7,
  failed: 1,
  childrenWedged: 0,
  store: { down: [], warnings: [] },
};

describe('worker pool health', () => {
  it('is up while the maintenance pass runs and every child lives', () => {
    expect(assessPoolHealth(healthy, NOW)).toEqual({
      status: 'up',
      reasons: [],
      warnings: [],
      childrenAlive: 2,
      childrenExpected: 2,
      maintenancePassAgeMs: 500,
      done: 7,
      failed: 1,
    });
  });

  it.each([
    [{ stopping: true }, 'the pool is stopping'],
    [{ lastMaintenancePassAt: null }, 'no maintenance pass has completed yet'],
    [
      { lastMaintenancePassAt: NOW - 3001 },
      'the last maintenance pass is 3001 ms old (limit 3000 ms)',
    ],
    [
      { lastMaintenancePassAt: NOW - 9000, maintenanceIntervalMs: 2000 },
      'the last maintenance pass is 9000 ms old (limit 6000 ms)',
    ],
    [{ childrenAlive: 1 }, '1 of 2 worker children are alive'],
  ])('is down with the reason when %o', (change, reason) => {
    const report = assessPoolHealth({ ...healthy, ...change }, NOW);
    expect(report.status).toBe('down');
    expect(report.reasons).toEqual([reason]);
  });

  it('is down when its store lost its data, and up but degraded, with a warning, when it keeps nothing', () => {
    const keepsNothing = storeHealth('orders', { persistence: 'none', dataLost: null });
    const degraded = assessPoolHealth({ ...healthy, store: keepsNothing }, NOW);
    expect(degraded.status).toBe('up');
    expect(degraded.reasons).toEqual([]);
    expect(degraded.warnings).toEqual([
      expect.stringMatching(/^Backend "orders": its store keeps nothing on disk/),
    ]);
    const lost = storeHealth('orders', { persistence: 'none', dataLost: 'the data is gone' });
    const down = assessPoolHealth({ ...healthy, store: lost }, NOW);
    expect(down.status).toBe('down');
    expect(down.reasons).toEqual(['the data is gone']);
    expect(down.warnings).toHaveLength(1);
    // Snapshots, or a log, are no fault: the backend names the window once, when it connects.
    for (const persistence of ['snapshots', 'log'] as const) {
      expect(storeHealth('orders', { persistence, dataLost: null })).toEqual({
        down: [],
        warnings: [],
      });
    }
    expect(storeHealth('orders', null)).toEqual({ down: [], warnings: [] });
  });

  it('serves the assessment over HTTP: 200 when up, 503 when down', async () => {
    let state: PoolHealth = { ...healthy, lastMaintenancePassAt: Date.now() };
    const server = new WorkerHealthServer(0, () => state);
    await server.start();
    try {
      const url = `http://127.0.0.1:${server.port}/health`;
      const up = await fetch(url);
      expect(up.status).toBe(200);
      expect(await up.json()).toMatchObject({ status: 'up', childrenAlive: 2 });
      state = { ...state, childrenAlive: 0 };
      const down = await fetch(url);
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({
        status: 'down',
        reasons: ['0 of 2 worker children are alive'],
      });
    } finally {
      await server.close();
    }
  });

  it('answers GET /metrics with 501 and what to install when prom-client is not there', async () => {
    const server = new WorkerHealthServer(0, () => healthy, null);
    await server.start();
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(response.status).toBe(501);
      expect(await response.text()).toMatch(/npm install prom-client/);
    } finally {
      await server.close();
    }
  });

  it('serves the rendered metrics on GET /metrics and the liveness JSON everywhere else', async () => {
    const page = { contentType: 'text/plain; version=0.0.4; charset=utf-8', body: 'x_total 1\n' };
    const state: PoolHealth = { ...healthy, lastMaintenancePassAt: Date.now() };
    const server = new WorkerHealthServer(0, () => state, { render: () => Promise.resolve(page) });
    await server.start();
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const metrics = await fetch(`${base}/metrics?name=x`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toBe(page.contentType);
      expect(await metrics.text()).toBe(page.body);
      const live = await fetch(`${base}/`);
      expect(live.status).toBe(200);
      expect(await live.json()).toMatchObject({ status: 'up' });
    } finally {
      await server.close();
    }
  });
});
