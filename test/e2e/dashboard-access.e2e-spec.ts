import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';

import {
  DashboardAccessRuleMissingError,
  InvalidDashboardOptionError,
  MemoryBackend,
  QueueService,
  TaskResultStatus,
  TaskService,
  ThreadmillModule,
} from '../../lib';
import {
  ThreadmillDashboardModule,
  dashboardActionOf,
  type ThreadmillDashboardOptions,
} from '../../lib/dashboard';
import { GreetingTasks } from '../fixtures/greeting.tasks';
import {
  startDashboardApp,
  type DashboardApp,
  type DashboardStack,
} from '../helpers/dashboard-app';
import { dashboardClient, openEventStream } from '../helpers/dashboard-client';

// Who may read and act on the dashboard, over real HTTP: the authorize hook
// (401, 403, read-only viewers), the cross-site checks of every action, Nest
// guards, and the refusal to boot without any access rule.

type Headers = Record<string, string | undefined>;
const roleOf = (request: unknown): string | undefined =>
  (request as { headers: Headers }).headers['x-test-role'];

/** admin acts, viewer reads, nobody is refused, and a request without a role is unauthenticated. */
const authorize: ThreadmillDashboardOptions['authorize'] = (request, action) => {
  const role = roleOf(request);
  if (role === undefined) throw new UnauthorizedException('Sign in to see the dashboard.');
  return role === 'admin' || (role === 'viewer' && action === 'read');
};

let assetsDir: string;
beforeAll(() => {
  assetsDir = mkdtempSync(join(tmpdir(), 'threadmill-dashboard-assets-'));
  writeFileSync(join(assetsDir, 'index.html'), '<html><head></head><body>dashboard</body></html>');
});
afterAll(() => rmSync(assetsDir, { recursive: true, force: true }));

describe.each<DashboardStack>(['express+redis', 'fastify+sqlite'])(
  'dashboard access (%s)',
  (stack) => {
    jest.setTimeout(20_000);
    let dashboard: DashboardApp;
    const base = () => `${dashboard.origin}/threadmill`;
    const as = (role: string) => dashboardClient(base(), { 'x-test-role': role });
    const alias = () => `alias=${encodeURIComponent(dashboard.alias)}`;

    beforeAll(async () => {
      dashboard = await startDashboardApp(
        stack,
        { authorize, trustedOrigins: ['https://admin.example'] },
        assetsDir,
      );
    });
    afterAll(() => dashboard?.close());

    it('answers 401 when authorize throws UnauthorizedException, 403 when it refuses to read', async () => {
      const anonymous = dashboardClient(base());
      const unauthenticated = await anonymous('GET', '/api/meta');
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.body).toEqual({
        error: { name: 'UnauthorizedException', message: 'Sign in to see the dashboard.' },
      });
      const nobody = as('nobody');
      for (const route of [
        '',
        '/tasks/x',
        '/api/meta',
        `/api/overview?${alias()}`,
        '/assets/app.js',
      ]) {
        const answer = await nobody('GET', route);
        expect([route, answer.status]).toEqual([route, 403]);
      }
      await expect(
        openEventStream(`${base()}/api/stream?${alias()}`, { 'x-test-role': 'nobody' }),
      ).rejects.toThrow(/403/);
      expect((await as('admin')('GET', '')).status).toBe(200);
    });

    it('lets a viewer read everything and act on nothing', async () => {
      const viewer = as('viewer');
      const { id } = await dashboard.app.get(TaskService).enqueue(GreetingTasks, 'greet', ['Vi']);
      expect((await viewer('GET', '/api/meta')).body).toMatchObject({ canAct: false });
      expect((await viewer('GET', `/api/tasks/${id}?${alias()}`)).status).toBe(200);
      expect((await viewer('GET', '')).status).toBe(200);
      const stream = await openEventStream(`${base()}/api/stream?${alias()}`, {
        'x-test-role': 'viewer',
      });
      await stream.close();
      const attempts: [string, string, unknown][] = [
        ['POST', `/api/tasks/${id}/cancel`, {}],
        ['POST', '/api/tasks/cancel', { queue: 'default' }],
        ['POST', '/api/tasks/retry', { queue: 'default', dryRun: true }],
        ['POST', '/api/queues/default/pause', {}],
        ['PUT', '/api/queues/default/limits', { concurrency: 1 }],
        ['POST', '/api/schedules/any/run', {}],
      ];
      for (const [method, route, body] of attempts) {
        const answer = await viewer(method, `${route}?${alias()}`, { body });
        expect([route, answer.status]).toEqual([route, 403]);
      }
      expect((await dashboard.backend.tasks.getResult(id)).status).toBe(TaskResultStatus.READY);
      const state = await dashboard.app
        .get(QueueService)
        .state('default', { alias: dashboard.alias });
      expect(state).toEqual({ paused: false, limits: null });
    });

    it('refuses an action from another site, or without its header, and takes one from its own origin', async () => {
      const admin = as('admin');
      const route = `/api/queues/loud/pause?${alias()}`;
      const refused: [string, { headers?: Record<string, string>; csrf?: boolean }][] = [
        ['another origin', { headers: { origin: 'https://evil.example' } }],
        ['a cross-site fetch', { headers: { 'sec-fetch-site': 'cross-site' } }],
        ['a same-site fetch', { headers: { 'sec-fetch-site': 'same-site' } }],
        ['no action header', { csrf: false }],
      ];
      for (const [what, options] of refused) {
        const answer = await admin('POST', route, { body: {}, ...options });
        expect([what, answer.status]).toEqual([what, 403]);
      }
      expect(
        (await dashboard.app.get(QueueService).state('loud', { alias: dashboard.alias })).paused,
      ).toBe(false);
      const own = { origin: dashboard.origin, 'sec-fetch-site': 'same-origin' };
      expect((await admin('POST', route, { body: {}, headers: own })).status).toBe(200);
      const trusted = { origin: 'https://admin.example' };
      expect(
        (await admin('POST', `/api/queues/loud/resume?${alias()}`, { body: {}, headers: trusted }))
          .status,
      ).toBe(200);
    });
  },
);

/** Lets every request read and none act, told by dashboardActionOf. */
@Injectable()
class ReadOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return dashboardActionOf(context) === 'read';
  }
}

describe('dashboard boot (memory)', () => {
  const compile = (options: ThreadmillDashboardOptions, aliases?: string[]) =>
    Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          isGlobal: true,
          backends: { default: { backend: MemoryBackend } },
        }),
        ThreadmillDashboardModule.forRoot({ ...options, ...(aliases && { aliases }) }),
      ],
    }).compile();

  it('refuses to boot without an access rule, saying how to give one', async () => {
    const failure = compile({});
    await expect(failure).rejects.toThrow(DashboardAccessRuleMissingError);
    await expect(compile({ open: false })).rejects.toThrow(/authorize.*guards.*open: true/s);
  });

  it('refuses an invalid option at boot, naming it', async () => {
    await expect(compile({ open: true, refreshMs: 10 })).rejects.toThrow(
      InvalidDashboardOptionError,
    );
    await expect(compile({ open: true, path: '/a b' })).rejects.toThrow(/option "path"/);
    const app = (await compile({ open: true }, ['elsewhere'])).createNestApplication({
      logger: false,
    });
    await expect(app.init()).rejects.toThrow(/option "aliases" names "elsewhere"/);
    await app.close();
  });

  it('runs the guards given, which tell reads from actions', async () => {
    const dashboard = await startDashboardApp(
      'express+memory',
      { guards: [ReadOnlyGuard] },
      assetsDir,
    );
    try {
      const call = dashboardClient(`${dashboard.origin}/threadmill`);
      expect((await call('GET', '/api/meta')).status).toBe(200);
      expect((await call('POST', '/api/queues/default/pause', { body: {} })).status).toBe(403);
    } finally {
      await dashboard.close();
    }
  });

  it('answers 500 naming the build command when the page is not built, and serves the API', async () => {
    const dashboard = await startDashboardApp(
      'fastify+memory',
      { open: true, path: 'ops/tasks/' },
      join(assetsDir, 'missing'),
    );
    try {
      const call = dashboardClient(`${dashboard.origin}/ops/tasks`);
      const page = await call('GET', '');
      expect(page.status).toBe(500);
      expect(page.body).toMatchObject({
        error: { message: expect.stringContaining('npm run build') },
      });
      expect((await call('GET', '/api/meta')).body).toMatchObject({ canAct: true });
      expect((await call('POST', '/api/queues/default/pause', { body: {} })).body).toEqual({
        paused: true,
      });
    } finally {
      await dashboard.close();
    }
  });
});
