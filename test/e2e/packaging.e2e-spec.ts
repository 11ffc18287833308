import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

import { Redis } from 'ioredis';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import {
  NEST_APP_KINDS,
  WRONG_ARGUMENTS,
  WRONG_CONTRACT_ARGUMENTS,
  writeNestApp,
  writeProducerApp,
} from '../helpers/nest-app';
import { packedPackage } from '../helpers/packed-package';
import { removeAliasKeys } from '../helpers/redis-cleanup';
import { testAlias } from '../helpers/test-alias';
import { testRedisUrl } from '../helpers/test-redis-url';
import { storeRules } from '../../lib/lifecycle/store-rules';

// The package as a user gets it: built and packed with `npm pack` (one build
// shared with the getting-started test, see packedPackage), installed from the
// tarball (its peers from the registry, through npm's cache) into fresh Nest 11
// and Nest 12 apps outside the repository, which enqueue a task and drain it
// with `nest start --entryFile worker` against a real Redis.

const run = promisify(execFile);
const repo = join(__dirname, '..', '..');

/** The optional peers: importing the main entry point must load none of them. */
const OPTIONAL_PEERS = [
  'nest-commander',
  '@nestjs/terminus',
  'better-sqlite3',
  'pg',
  'ink',
  'react',
  'nestjs-cls',
  '@nestjs-cls/transactional',
];

function filesEndingWith(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(suffix))
    .map((file) => relative(dir, join(dir, file)));
}

/** `source`, written as src/wrong.ts of the app in `dir`, fails its compile on the argument. */
async function expectRefusedArguments(dir: string, source: string): Promise<void> {
  writeFileSync(join(dir, 'src', 'wrong.ts'), source);
  const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
  const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], {
    cwd: dir,
  }).then(
    () => 'compiled',
    (error: { stdout: string }) => error.stdout,
  );
  expect(compiled).toContain('src/wrong.ts');
  expect(compiled).toContain("Type 'number' is not assignable to type 'string'");
}

describe('packaging (e2e: the packed package in fresh Nest apps)', () => {
  // Each app installs from npm's cache and compiles twice (nest build, nest start).
  jest.setTimeout(240_000);
  const dirs: string[] = [];
  let tarball: string;
  let shipped: readonly string[];
  let redis: Redis;
  const aliases: string[] = [];

  const tempDir = (prefix: string): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    redis = new Redis(testRedisUrl());
    ({ tarball, files: shipped } = await packedPackage());
  }, 120_000);

  afterAll(async () => {
    for (const alias of aliases) await removeAliasKeys(redis, alias);
    await redis.quit();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('ships the build, the Lua scripts, the dashboard page, the bin, LICENSE and CHANGELOG, and nothing else', () => {
    for (const file of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/index.js',
      'dist/cli/threadmill.bin.js',
      'dist/health/index.d.ts',
      'dist/dashboard/index.d.ts',
      'dist/backends/sqlite/index.d.ts',
      'dist/backend-kit/index.d.ts',
      'dist/testing/index.d.ts',
      'dist/dashboard/assets/index.html',
      'dist/dashboard/assets/app.js',
      'dist/dashboard/assets/app.css',
      'LICENSE',
      'CHANGELOG.md',
      'README.md',
    ]) {
      expect(shipped).toContain(file);
    }
    expect(shipped.filter((path) => /^(test|sample|bench|lib)\//.test(path))).toEqual([]);
    expect(shipped.filter((path) => path.endsWith('.spec.js'))).toEqual([]);
    for (const lua of filesEndingWith(join(repo, 'lib'), '.lua')) {
      expect(shipped).toContain(join('dist', lua));
    }
  });

  describe.each(NEST_APP_KINDS)('$name', (kind) => {
    let app: string;
    let alias: string;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      app = tempDir('threadmill-app-');
      alias = testAlias();
      aliases.push(alias);
      env = { ...process.env, REDIS_URL: testRedisUrl(), THREADMILL_ALIAS: alias, NO_COLOR: '1' };
      writeNestApp(app, kind);
      const install = ['install', '--prefer-offline', '--no-audit', '--no-fund'];
      await run('npm', [...install, tarball, 'nest-commander@3', ...kind.dependencies], {
        cwd: app,
      });
      await run('npm', [...install, '--save-dev', ...kind.devDependencies], { cwd: app });
    }, 180_000);

    it('installs one copy of @nestjs/core, the app’s own', async () => {
      // npm ls exits 1 on Nest 12 because nest-commander's own discovery dependency
      // declares Nest ^11 as its peer; the listing is complete all the same.
      const { stdout } = await run('npm', ['ls', '@nestjs/core', '--all', '--parseable'], {
        cwd: app,
      }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
      const copies = new Set(stdout.trim().split('\n'));
      expect([...copies]).toEqual([join(app, 'node_modules', '@nestjs', 'core')]);
    });

    it('compiles against the published types of every entry it imports, without skipLibCheck or the optional peers', async () => {
      await run('npx', ['nest', 'build'], { cwd: app, env });
    });

    it('loads no optional peer through the main entry point', async () => {
      const probe = `
        require('reflect-metadata');
        require('@threadmill/nestjs');
        const peers = ${JSON.stringify(OPTIONAL_PEERS)};
        const loaded = Object.keys(require.cache).filter((file) =>
          peers.some((peer) => file.includes('/node_modules/' + peer + '/')),
        );
        process.stdout.write(JSON.stringify(loaded));
      `;
      const { stdout } = await run(process.execPath, ['-e', probe], { cwd: app });
      expect(JSON.parse(stdout)).toEqual([]);
    });

    it('loads /backend and /testing without fast-check or any other optional peer', async () => {
      const probe = `
        require('reflect-metadata');
        const backend = require('@threadmill/nestjs/backend');
        const testing = require('@threadmill/nestjs/testing');
        const peers = ${JSON.stringify([...OPTIONAL_PEERS, 'fast-check'])};
        const loaded = Object.keys(require.cache).filter((file) =>
          peers.some((peer) => file.includes('/node_modules/' + peer + '/')),
        );
        process.stdout.write(JSON.stringify({
          loaded,
          suite: typeof backend.describeBackendContract,
          memory: typeof testing.MemoryBackend,
        }));
      `;
      const { stdout } = await run(process.execPath, ['-e', probe], { cwd: app });
      expect(JSON.parse(stdout)).toEqual({ loaded: [], suite: 'function', memory: 'function' });
    });

    it('enqueues through TaskService and drains with `nest start --entryFile worker`', async () => {
      const { stdout: id } = await run(process.execPath, [join('dist', 'main.js')], {
        cwd: app,
        env,
      });
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      await run('npx', ['nest', 'start', '--entryFile', 'worker', '--', '--exit-empty'], {
        cwd: app,
        env,
      });
      const backend = new RedisBackend(
        alias,
        { backend: RedisBackend, url: testRedisUrl() },
        storeRules,
      );
      try {
        const record = await backend.tasks.getResult(id);
        expect(record.status).toBe(TaskResultStatus.SUCCESSFUL);
        expect(record.returnValue).toBe('Hello, packaged! (attempt 1)');
      } finally {
        await backend.close();
      }
      // The bin finds the app's worker entry; stdout holds the result alone.
      const shown = await run('npx', ['threadmill', 'result', id], { cwd: app, env });
      expect(JSON.parse(shown.stdout)).toMatchObject({ id, status: 'SUCCESSFUL' });
    });

    it('a producer app with no task provider enqueues a contract and awaits what the worker app returns', async () => {
      // Its own app, built on its own, with the packages the worker app installed.
      const producer = tempDir('threadmill-producer-');
      writeProducerApp(producer, kind);
      symlinkSync(join(app, 'node_modules'), join(producer, 'node_modules'), 'dir');
      await run('npx', ['nest', 'build'], { cwd: producer, env });
      const producing = spawn(process.execPath, [join('dist', 'main.js')], { cwd: producer, env });
      let output = '';
      const enqueued = new Promise<void>((resolve) => {
        producing.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('\n')) resolve();
        });
      });
      const exited = new Promise<number | null>((resolve) => producing.on('exit', resolve));
      await enqueued;
      await run(process.execPath, [join('dist', 'worker.js'), '--exit-empty'], { cwd: app, env });
      await expect(exited).resolves.toBe(0);
      const [id, result] = output.trim().split('\n');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(result)).toEqual({ shouted: 'PACKAGED!' });
      await expectRefusedArguments(producer, WRONG_CONTRACT_ARGUMENTS);
    });

    if (!kind.esm && kind.compilerOptions.moduleResolution === 'node') {
      it('refuses, at compile time, arguments that do not match the task method', async () => {
        await expectRefusedArguments(app, WRONG_ARGUMENTS);
      });
    }
  });
});
