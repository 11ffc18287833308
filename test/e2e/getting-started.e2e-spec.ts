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
import { codeBlocks } from '../unit/docs/doc-pages';

// docs/getting-started.md followed as its reader does: a starter made by the
// real `nest new` of each major, `npm install`, the package installed from its
// packed tarball (everything else from the registry, through npm's cache),
// then each file of the guide's TypeScript blocks written in order (a
// `// add to ...` block added to the starter's file), one `nest build`, the web
// app and a request, the worker pool, `npx threadmill result` and the
// dashboard the guide adds open, for local use. The app's
// backend alias is the guide's `default`, so it gets a redis-server of its own.

const run = promisify(execFile);
const GUIDE = 'docs/getting-started.md';
const QUIET = ['--prefer-offline', '--no-audit', '--no-fund'];

const STARTERS = [
  { name: 'Nest 12 (what `nest new` makes today)', cli: '@nestjs/cli@12' },
  { name: 'Nest 11', cli: '@nestjs/cli@11' },
];

describe('getting started (e2e: the guide followed in a fresh `nest new` app)', () => {
  // Per starter: nest new, two installs from npm's cache and one build, on 2 shared cores.
  jest.setTimeout(240_000);
  const dirs: string[] = [];
  const started: RunningCli[] = [];
  let tarball: string;
  let redis: RedisServerHandle;

  beforeAll(async () => {
    ({ tarball } = await packedPackage());
    redis = await startRedisServer();
  }, 180_000);

  afterAll(async () => {
    for (const process of started) await process.killGroup();
    await redis?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  describe.each(STARTERS)('$name', ({ cli }) => {
    let app: string;
    const npm = (args: readonly string[]) => run('npm', [...args], { cwd: app });

    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'threadmill-getting-started-'));
      dirs.push(dir);
      await run(
        'npx',
        [
          '--yes',
          cli,
          'new',
          'my-app',
          '--strict',
          '--skip-git',
          '--skip-install',
          '--package-manager',
          'npm',
        ],
        { cwd: dir, env: { ...process.env, npm_config_prefer_offline: 'true' } },
      );
      app = join(dir, 'my-app');
      // What `nest new` installs, then the guide's own `npm install`.
      await npm(['install', ...QUIET]);
      await npm(['install', ...QUIET, tarball, 'nest-commander@3']);
    }, 240_000);

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
        const path = join(app, block.file ?? '');
        if (block.addsTo) {
          writeFileSync(path, addToModuleFile(readFileSync(path, 'utf8'), block.code));
        } else {
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, `${block.code}\n`);
        }
      }
      await npm(['exec', '--', 'nest', 'build']);
    });

    it('runs the digest a request enqueues to SUCCESSFUL, and shows it with `threadmill result`', async () => {
      const port = await freePort();
      const env = { REDIS_URL: redis.url, PORT: String(port), NO_COLOR: '1' };
      const web = startNodeProcess(join(app, 'dist', 'main.js'), [], started, { cwd: app, env });
      await untilOutput(web, /Nest application successfully started/);
      const response = await fetch(`http://127.0.0.1:${port}/digests/2026-01-01`, {
        method: 'POST',
      });
      expect(response.status).toBe(201);
      const { id } = (await response.json()) as { id: string };

      const pool = await run(
        process.execPath,
        [join('dist', 'worker.js'), 'worker', '--exit-empty'],
        { cwd: app, env: { ...process.env, ...env } },
      );
      expect(pool.stdout).toBe('');
      expect(pool.stderr).toMatch(
        /Worker pool \d+ started on backend "default", queues "default", "emails"/,
      );

      const shown = await run('npx', ['threadmill', 'result', id], {
        cwd: app,
        env: { ...process.env, ...env },
      });
      expect(JSON.parse(shown.stdout)).toMatchObject({
        id,
        task: { name: 'mail.digest', queue: 'emails' },
        status: 'SUCCESSFUL',
        returnValue: 'digest for 2026-01-01 sent',
      });
      await web.killGroup();
    });

    it('serves the dashboard, added open for local use, with no access rule to write', async () => {
      const port = await freePort();
      const env = { REDIS_URL: redis.url, PORT: String(port), NO_COLOR: '1' };
      const web = startNodeProcess(join(app, 'dist', 'main.js'), [], started, { cwd: app, env });
      await untilOutput(web, /Nest application successfully started/);
      const page = await fetch(`http://127.0.0.1:${port}/threadmill/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const meta = await fetch(`http://127.0.0.1:${port}/threadmill/api/meta`);
      expect(meta.status).toBe(200);
      expect(await meta.json()).toMatchObject({ canAct: true });
      await web.killGroup();
    });
  });
});
