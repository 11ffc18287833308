import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A fresh Nest app as a user has one, written against the published package
 * names only: the kinds `nest new` makes today (Nest 12 as an ES module or as
 * CommonJS) and an existing Nest 11 app on the older `node` resolution.
 */
export interface NestAppKind {
  readonly name: string;
  /** `npm install` arguments besides the packed tarball. */
  readonly dependencies: readonly string[];
  readonly devDependencies: readonly string[];
  readonly esm: boolean;
  readonly compilerOptions: Record<string, unknown>;
}

const SHARED_OPTIONS = {
  declaration: true,
  removeComments: true,
  emitDecoratorMetadata: true,
  experimentalDecorators: true,
  allowSyntheticDefaultImports: true,
  esModuleInterop: true,
  sourceMap: true,
  outDir: './dist',
  rootDir: '.',
  strict: true,
  strictPropertyInitialization: false,
  // The published declarations must compile as they are, without the optional peers.
  skipLibCheck: false,
  types: ['node'],
};

const NEST_12_OPTIONS = {
  ...SHARED_OPTIONS,
  module: 'nodenext',
  moduleResolution: 'nodenext',
  resolvePackageJsonExports: true,
  isolatedModules: true,
  target: 'ES2023',
};

const nest12 = (name: string, esm: boolean): NestAppKind => ({
  name,
  dependencies: ['@nestjs/common@12', '@nestjs/core@12', 'reflect-metadata@0.2', 'rxjs@7'],
  devDependencies: ['@nestjs/cli@12', 'typescript@6.0', '@types/node@20'],
  esm,
  compilerOptions: NEST_12_OPTIONS,
});

export const NEST_APP_KINDS: readonly NestAppKind[] = [
  nest12('Nest 12, ES module (nest new default)', true),
  nest12('Nest 12, CommonJS', false),
  {
    name: 'Nest 11, CommonJS on node resolution',
    dependencies: ['@nestjs/common@11', '@nestjs/core@11', 'reflect-metadata@0.2', 'rxjs@7'],
    devDependencies: ['@nestjs/cli@11', 'typescript@5.9', '@types/node@20'],
    esm: false,
    compilerOptions: {
      ...SHARED_OPTIONS,
      module: 'commonjs',
      moduleResolution: 'node',
      target: 'ES2022',
    },
  },
];

/** Shared by the worker app and the producer app, as a library both import would be. */
const CONTRACTS = `import { defineTask } from '@threadmill/nestjs';

export const Shout = defineTask<[name: string], { shouted: string }>({
  name: 'shout',
  retries: 1,
});
`;

const TASKS = `import { Injectable } from '@nestjs/common';
import { Task, TaskContext } from '@threadmill/nestjs';
import { Shout } from './contracts.js';

@Injectable()
export class Greeter {
  greet(name: string): string {
    return 'Hello, ' + name + '!';
  }
}

@Injectable()
export class GreetingTasks {
  constructor(private readonly greeter: Greeter) {}

  @Task({ name: 'greet' })
  async greet(context: TaskContext, name: string): Promise<string> {
    return this.greeter.greet(name) + ' (attempt ' + context.attempt + ')';
  }

  @Task(Shout)
  async shout(name: string): Promise<{ shouted: string }> {
    return { shouted: name.toUpperCase() + '!' };
  }
}
`;

const APP_MODULE = `import { Module } from '@nestjs/common';
import { RedisBackend, ThreadmillModule } from '@threadmill/nestjs';
import { Greeter, GreetingTasks } from './greeting.tasks.js';

@Module({
  imports: [
    ThreadmillModule.forRoot({
      isGlobal: true,
      backends: {
        [process.env.THREADMILL_ALIAS ?? 'default']: {
          backend: RedisBackend,
          url: process.env.REDIS_URL,
        },
      },
    }),
  ],
  providers: [Greeter, GreetingTasks],
})
export class AppModule {}
`;

const WORKER_MODULE = `import { Module } from '@nestjs/common';
import { ThreadmillCommandsModule } from '@threadmill/nestjs/cli';
import { AppModule } from './app.module.js';

@Module({ imports: [AppModule, ThreadmillCommandsModule] })
export class WorkerModule {}
`;

/**
 * Compiled with the app, never run: a store's contract test and an app's
 * test as they import `/backend` and `/testing`, with no fast-check installed.
 */
const ENTRY_POINTS_IN_TESTS = `import {
  describeBackendContract,
  storeRules,
  type ContractRunner,
} from '@threadmill/nestjs/backend';
import { MemoryBackend, runMaintenancePass } from '@threadmill/nestjs/testing';

export function contractOnMemory(runner: ContractRunner): void {
  describeBackendContract(runner, 'memory', async ({ alias, queues, ...options }) => ({
    backend: new MemoryBackend(alias, { backend: MemoryBackend, queues, options }, storeRules),
    cleanup: async () => undefined,
  }));
}

export const passByHand: typeof runMaintenancePass = runMaintenancePass;
`;

/** The entries: an ES module awaits at top level, as `nest new`'s main.ts does. */
function entries(esm: boolean): Record<string, string> {
  const run = (call: string): string => (esm ? `await ${call};\n` : `void ${call};\n`);
  return {
    'worker.ts': `import 'reflect-metadata';
import { runThreadmillCli } from '@threadmill/nestjs/cli';
import { WorkerModule } from './worker.module.js';

${run('runThreadmillCli(WorkerModule)')}`,
    // Enqueues through TaskService and prints the id, as a web app's service would.
    'main.ts': `import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { TaskService } from '@threadmill/nestjs';
import { AppModule } from './app.module.js';
import { GreetingTasks } from './greeting.tasks.js';

async function enqueue(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  const result = await app.get(TaskService).enqueue(GreetingTasks, 'greet', ['packaged']);
  process.stdout.write(result.id);
  await app.close();
}
${run('enqueue()')}`,
  };
}

/** The producer app's only module: the store, and no task provider at all. */
const PRODUCER_MODULE = `import { Module } from '@nestjs/common';
import { RedisBackend, ThreadmillModule } from '@threadmill/nestjs';

@Module({
  imports: [
    ThreadmillModule.forRoot({
      backends: {
        [process.env.THREADMILL_ALIAS ?? 'default']: {
          backend: RedisBackend,
          url: process.env.REDIS_URL,
        },
      },
    }),
  ],
})
export class ProducerModule {}
`;

/** Enqueues the contract's task, prints its id, then its result once a worker ran it. */
function producerMain(esm: boolean): string {
  return `import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { TaskService } from '@threadmill/nestjs';
import { Shout } from './contracts.js';
import { ProducerModule } from './producer.module.js';

async function produce(): Promise<void> {
  const app = await NestFactory.createApplicationContext(ProducerModule, { logger: false });
  const enqueued = await app.get(TaskService).enqueue(Shout, ['packaged']);
  process.stdout.write(enqueued.id + '\\n');
  await enqueued.wait({ timeoutMs: 120_000 });
  const result: { shouted: string } = enqueued.returnValue;
  process.stdout.write(JSON.stringify(result) + '\\n');
  await app.close();
}
${esm ? 'await produce();' : 'void produce();'}
`;
}

/** Must not compile in the producer app: a contract keeps enqueue's arguments checked. */
export const WRONG_CONTRACT_ARGUMENTS = `import { TaskService } from '@threadmill/nestjs';
import { Shout } from './contracts.js';

export async function wrong(tasks: TaskService): Promise<void> {
  await tasks.enqueue(Shout, [42]);
}
`;

/** Must not compile: the published types keep enqueue's arguments checked. */
export const WRONG_ARGUMENTS = `import { TaskService } from '@threadmill/nestjs';
import { GreetingTasks } from './greeting.tasks.js';

export async function wrong(tasks: TaskService): Promise<void> {
  await tasks.enqueue(GreetingTasks, 'greet', [42]);
}
`;

/** Writes the worker app (tasks, web entry and worker entry) into `dir`. */
export function writeNestApp(dir: string, kind: NestAppKind): void {
  writeProject(dir, kind, {
    'contracts.ts': CONTRACTS,
    'greeting.tasks.ts': TASKS,
    'app.module.ts': APP_MODULE,
    'worker.module.ts': WORKER_MODULE,
    'entry-points-in-tests.ts': ENTRY_POINTS_IN_TESTS,
    ...entries(kind.esm),
  });
}

/**
 * Writes an app that only enqueues into `dir`: the shared contracts, a
 * module with no task provider, and a main that enqueues and awaits.
 */
export function writeProducerApp(dir: string, kind: NestAppKind): void {
  writeProject(dir, kind, {
    'contracts.ts': CONTRACTS,
    'producer.module.ts': PRODUCER_MODULE,
    'main.ts': producerMain(kind.esm),
  });
}

/** The app's package.json, compiler and Nest CLI configuration, and `sources` under src/. */
function writeProject(dir: string, kind: NestAppKind, sources: Record<string, string>): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  const manifest = {
    name: 'fresh-nest-app',
    version: '1.0.0',
    private: true,
    ...(kind.esm && { type: 'module' }),
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: kind.compilerOptions }, null, 2),
  );
  writeFileSync(
    join(dir, 'tsconfig.build.json'),
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { rootDir: './src' },
      include: ['src'],
      exclude: ['node_modules', 'test', 'dist', '**/*spec.ts'],
    }),
  );
  writeFileSync(
    join(dir, 'nest-cli.json'),
    JSON.stringify({
      collection: '@nestjs/schematics',
      sourceRoot: 'src',
      compilerOptions: { deleteOutDir: true },
    }),
  );
  for (const [file, text] of Object.entries(sources)) {
    writeFileSync(join(dir, 'src', file), text);
  }
}
