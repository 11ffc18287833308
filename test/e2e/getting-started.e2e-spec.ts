import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

import { startNodeProcess, untilOutput, type RunningCli } from '../helpers/cli-process';
import { freePort } from '../helpers/free-port';
import { addToModuleFile } from '../helpers/module-additions';
import { packedPackage } from '../helpers/packed-package';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait-for';
import { codeBlocks } from '../unit/docs/doc-pages';

// docs/getting-started.md followed as its reader does: a starter made by the
// real `nest new` of each major, `npm install`, the package installed from its
// packed tarball (everything else from the registry, through npm's cache),
// then each file of the guide's TypeScript blocks written in order (a
// `// add to ...` block added to the starter's file), one `nest build`, the web
// app and a request, the worker pool, `npx threadmill result`, and the
// dashboard the guide adds open for local use. The app's backend alias is the
// guide's `default`, so it gets a redis-server of its own.

const run = promisify(execFile);
const GUIDE = 'docs/getting-started.md';
const QUIET = ['--prefer-offline', '--no-audit', '--no-fund'];

const STARTERS = [
  { name: 'Nest 12 (what `nest new` makes today)', cli: '@nestjs/cli@12' },
  { name: 'Nest 11', cli: '@nestjs/cli@11' },
];

describe('getting started (e2e: the guide followed in a fresh `nest new` app)', () => {
  // Per starter: nest new, two installs from npm's cache and one build, on 2 shared cores.
  jest.setTimeout(120_000);
  const dirs: string[] = [];
  const started: RunningCli[] = [];
  const apps = new Map<string, string>();
  let redis: RedisServerHandle;

  /** `nest new` of that CLI, `npm install`, then the guide's install, from the packed tarball. */
  async function starter(cli: string, tarball: Promise<string>): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'threadmill-getting-started-'));
    dirs.push(dir);
    const flags = ['--strict', '--skip-git', '--skip-install', '--package-manager', 'npm'];
    await run('npx', ['--yes', cli, 'new', 'my-app', ...flags], {
      cwd: dir,
      env: { ...process.env, npm_config_prefer_offline: 'true' },
    });
    const app = join(dir, 'my-app');
    await run('npm', ['install', ...QUIET], { cwd: app });
    await run('npm', ['install', ...QUIET, await tarball, 'nest-commander@3'], { cwd: app });
    return app;
  }

  beforeAll(async () => {
    redis = await startRedisServer();
    // The package builds while the starters install: most of their time is spent waiting on npm.
    const tarball = packedPackage().then((packed) => packed.tarball);
    const made = await Promise.all(STARTERS.map(({ cli }) => starter(cli, tarball)));
    STARTERS.forEach(({ cli }, index) => apps.set(cli, made[index]));
  }, 420_000);

  afterAll(async () => {
    for (const process of started) await process.killGroup();
    await redis?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  describe.each(STARTERS)('$name', ({ cli }) => {
    const app = (): string => apps.get(cli) ?? '';
    let base: string;

    it('builds once the guide’s files are written, in order, into the starter', async () => {
      const blocks = codeBlocks(GUIDE).filter((block) => block.lang === 'ts' && block.file);
      expect(blocks.map((block) => `${block.addsTo ? 'add to ' : ''}${block.file}`)).toEqual([
        'src/mail.tasks.ts',
        'src/digest.service.ts',
        'src/digest.controller.ts',
        'src/digest.module.ts',
        'add to src/app.module.ts',
        'src/worker.module.ts',
        'src/worker.ts',
        'add to src/app.module.ts',
      ]);
      for (const block of blocks) {
        const path = join(app(), block.file ?? '');
        if (block.addsTo) {
          writeFileSync(path, addToModuleFile(readFileSync(path, 'utf8'), block.code));
        } else {
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, `${block.code}\n`);
        }
      }
      await run('npm', ['exec', '--', 'nest', 'build'], { cwd: app() });
    });

    it('runs the digest a request enqueues to SUCCESSFUL, and shows it with `threadmill result`', async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      const env = { REDIS_URL: redis.url, PORT: String(port), NO_COLOR: '1' };
      const web = startNodeProcess(join(app(), 'dist', 'main.js'), [], started, {
        cwd: app(),
        env,
      });
      // Nest logs its start before the server listens: the first request is the readiness check.
      await untilOutput(web, /Nest application successfully started/);
      const response = await waitFor(
        () => fetch(`${base}/digests/2026-01-01`, { method: 'POST' }),
        { timeoutMs: 15_000, intervalMs: 50, what: `${base} to take the request` },
      );
      expect(response.status).toBe(201);
      const { id } = (await response.json()) as { id: string };

      const pool = await run(
        process.execPath,
        [join('dist', 'worker.js'), 'worker', '--exit-empty'],
        { cwd: app(), env: { ...process.env, ...env } },
      );
      expect(pool.stdout).toBe('');
      expect(pool.stderr).toMatch(
        /Worker pool \d+ started on backend "default", queues "default", "emails"/,
      );

      const shown = await run('npx', ['threadmill', 'result', id], {
        cwd: app(),
        env: { ...process.env, ...env },
      });
      expect(JSON.parse(shown.stdout)).toMatchObject({
        id,
        task: { name: 'mail.digest', queue: 'emails' },
        status: 'SUCCESSFUL',
        returnValue: 'digest for 2026-01-01 sent',
      });
    });

    it('serves the dashboard, added open for local use, with no access rule to write', async () => {
      const page = await fetch(`${base}/threadmill/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const meta = await fetch(`${base}/threadmill/api/meta`);
      expect(meta.status).toBe(200);
      expect(await meta.json()).toMatchObject({ canAct: true });
    });
  });
});
