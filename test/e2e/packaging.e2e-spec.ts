import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repo = join(__dirname, '..', '..');
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');

/** Every file under `dir` whose name ends with `suffix`, relative to `dir`. */
function filesEndingWith(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(suffix))
    .map((file) => relative(dir, join(dir, file)));
}

const APP_TSCONFIG = {
  compilerOptions: {
    module: 'commonjs',
    target: 'ES2022',
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    skipLibCheck: true,
    outDir: 'dist',
    rootDir: 'src',
    types: ['node'],
  },
  include: ['src/**/*.ts'],
};

// A user's app, written against the published package name only.
const APP_MAIN = `
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  MemoryBackend,
  Task,
  TaskContext,
  TaskRunner,
  TaskService,
  ThreadmillModule,
  BackendRegistry,
} from '@threadmill/nestjs';

@Injectable()
export class Greeter {
  greet(name: string): string {
    return 'Hello, ' + name + '!';
  }
}

@Injectable()
export class GreetingTasks {
  constructor(private readonly greeter: Greeter) {}

  @Task({ queue: 'greetings' })
  async greet(name: string): Promise<string> {
    return this.greeter.greet(name);
  }

  @Task()
  attempt(context: TaskContext, label: string): string {
    return label + '#' + context.attempt;
  }
}

@Module({
  imports: [
    ThreadmillModule.forRoot({
      backends: {
        default: { backend: MemoryBackend, queues: ['default', 'greetings'] },
        inline: { backend: MemoryBackend, options: { immediate: true } },
      },
    }),
  ],
  providers: [Greeter, GreetingTasks],
})
class AppModule {}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  const tasks = app.get(TaskService);
  const enqueued = await tasks.enqueue(GreetingTasks, 'greet', ['packaged']);
  const backend = app.get(BackendRegistry).get('default');
  const [record] = await backend.acquire(['greetings'], { workerId: 'pkg:1-0', timeoutMs: 1000 });
  await backend.acknowledge([await app.get(TaskRunner).run(record)]);
  const result = await enqueued.refresh();
  const inline = await tasks.task(GreetingTasks, 'attempt').using({ backend: 'inline' }).enqueue('ctx');
  const value: string = result.returnValue;
  process.stdout.write(JSON.stringify({ status: result.status, value, inline: inline.returnValue }));
  await app.close();
}

void main();
`;

// Must not compile: proves the published types keep enqueue arguments checked.
const APP_WRONG = `
import { TaskService } from '@threadmill/nestjs';
import { GreetingTasks } from './main';

export async function wrong(tasks: TaskService): Promise<void> {
  await tasks.enqueue(GreetingTasks, 'greet', [42]);
}
`;

describe('packaging (e2e)', () => {
  const dirs: string[] = [];
  const tempDir = (prefix: string): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('builds, packs, installs into a fresh Nest app outside the repo, compiles it and runs a task', async () => {
    // Build and pack from a copy, so this test never races another run over the repo's dist/.
    const stage = tempDir('threadmill-stage-');
    for (const entry of [
      'package.json',
      'README.md',
      'nest-cli.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'lib',
    ]) {
      cpSync(join(repo, entry), join(stage, entry), { recursive: true });
    }
    symlinkSync(join(repo, 'node_modules'), join(stage, 'node_modules'), 'dir');
    await run('npm', ['run', 'build'], { cwd: stage });
    const packDir = join(stage, 'pack');
    mkdirSync(packDir);
    const { stdout: packed } = await run('npm', ['pack', '--json', '--pack-destination', packDir], {
      cwd: stage,
    });
    const [{ filename, files }] = JSON.parse(packed) as [
      { filename: string; files: { path: string }[] },
    ];
    const shipped = files.map((file) => file.path);
    expect(shipped).toContain('dist/index.js');
    expect(shipped).toContain('dist/index.d.ts');
    expect(shipped.filter((path) => /^(test|sample|bench|lib)\//.test(path))).toEqual([]);
    expect(shipped.filter((path) => path.endsWith('.spec.js'))).toEqual([]);
    for (const lua of filesEndingWith(join(repo, 'lib'), '.lua')) {
      expect(shipped).toContain(join('dist', lua));
    }

    const app = tempDir('threadmill-app-');
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'throwaway-nest-app', version: '1.0.0', private: true }),
    );
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(APP_TSCONFIG));
    mkdirSync(join(app, 'src'));
    writeFileSync(join(app, 'src', 'main.ts'), APP_MAIN);
    // The warm npm cache keeps this fast; the registry is only asked about what it lacks.
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        join(packDir, filename),
        '@types/node@20',
      ],
      { cwd: app },
    );

    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app });
    const { stdout } = await run(process.execPath, [join(app, 'dist', 'main.js')], { cwd: app });
    expect(JSON.parse(stdout)).toEqual({
      status: 'SUCCESSFUL',
      value: 'Hello, packaged!',
      inline: 'ctx#1',
    });

    writeFileSync(join(app, 'src', 'wrong.ts'), APP_WRONG);
    const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], {
      cwd: app,
    }).then(
      () => 'compiled',
      (error: { stdout: string }) => error.stdout,
    );
    expect(compiled).toContain('src/wrong.ts');
    expect(compiled).toContain("Type 'number' is not assignable to type 'string'");
  }, 300_000);
});
