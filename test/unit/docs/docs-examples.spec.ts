import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { Test } from '@nestjs/testing';
import * as ts from 'typescript';

import { BackendRegistry, MemoryBackend, TaskService, ThreadmillModule } from '../../../lib';
import { PACKAGE_ENTRY_POINTS, REPO, blockPath, codeBlocks } from './doc-pages';

// The examples of the docs run here, as written: each ```ts block of these
// pages is compiled to a module of its own (docs-compile.spec.ts type-checks
// them), the package's name pointing at lib/. Every block that is a test file
// (`// src/....spec.ts`) runs as part of this suite.

const RUN_PAGES = ['README.md', 'docs/tasks.md', 'docs/testing.md'];

const folder = mkdtempSync(join(tmpdir(), 'threadmill-docs-run-'));
symlinkSync(join(REPO, 'node_modules'), join(folder, 'node_modules'), 'dir');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The package's entry points by name, as the absolute sources jest transforms. */
function rewritePackageImports(js: string): string {
  return js.replace(/require\("(@threadmill\/nestjs(?:\/\w+)?)"\)/g, (call, name: string) => {
    const source = PACKAGE_ENTRY_POINTS[name];
    return source ? `require(${JSON.stringify(join(REPO, source))})` : call;
  });
}

const written = new Map<string, string>();
for (const page of RUN_PAGES) {
  for (const block of codeBlocks(page).filter((b) => b.lang === 'ts')) {
    const { outputText } = ts.transpileModule(block.code, {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
      },
    });
    const file = join(folder, blockPath(block).replace(/\.ts$/, '.js'));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, rewritePackageImports(outputText));
    written.set(`${page}:${block.file ?? block.line}`, file);
  }
}

/** The module a page's block named `file` compiled to. */
function load<T>(page: string, file: string): T {
  const path = written.get(`${page}:${file}`);
  if (!path) throw new Error(`${page} has no block for ${file}`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- compiled at run time, above
  return require(path) as T;
}

// The test files of the docs, run as they are written.
for (const [key, file] of written) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- compiled at run time, above
  if (key.endsWith('.spec.ts')) require(file);
}

type Class<T = object> = new (...args: never[]) => T;

interface Signup {
  signUp(userId: string): Promise<string>;
  sendDigestTomorrow(day: string): Promise<void>;
}

interface Orders {
  welcomeOnce(userId: string): Promise<string>;
}

interface Digests {
  schedule(day: string): Promise<string>;
}

describe('the examples of the docs', () => {
  it('has test files to run', () => {
    expect([...written.keys()].filter((key) => key.endsWith('.spec.ts')).length).toBeGreaterThan(0);
  });

  it('tasks: sendDigestTomorrow defers the digest by a day, at priority -10', async () => {
    const { Mailer } = load<{ Mailer: Class }>('docs/tasks.md', 'src/mail/mailer.ts');
    const { MailTasks } = load<{ MailTasks: Class }>('docs/tasks.md', 'src/mail/mail.tasks.ts');
    const { SignupService } = load<{ SignupService: Class<Signup> }>(
      'docs/tasks.md',
      'src/signup/signup.service.ts',
    );
    const moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: { default: { backend: MemoryBackend, queues: ['default', 'emails'] } },
        }),
      ],
      providers: [Mailer, MailTasks, SignupService],
    }).compile();
    await moduleRef.init();
    const signup = moduleRef.get(SignupService);
    await signup.sendDigestTomorrow('2026-12-01');
    const backend = moduleRef.get(BackendRegistry).get('default');
    const deferred = await backend.reads.peek('default', 'deferred', 10);
    expect(deferred.map((record) => [record.task.name, record.args, record.task.priority])).toEqual(
      [['mail.digest', ['2026-12-01'], -10]],
    );
    const welcome = await signup.signUp('user-1');
    const [ready] = await backend.reads.peek('emails', 'ready', 10);
    expect([ready.id, ready.task.name, ready.task.priority]).toEqual([
      welcome,
      'MailTasks.sendWelcome',
      10,
    ]);
    await moduleRef.close();
  });

  it('tasks: welcomeOnce enqueues one welcome per user, however often it is called', async () => {
    const { Mailer } = load<{ Mailer: Class }>('docs/tasks.md', 'src/mail/mailer.ts');
    const { MailTasks } = load<{ MailTasks: Class }>('docs/tasks.md', 'src/mail/mail.tasks.ts');
    const { OrdersService } = load<{ OrdersService: Class<Orders> }>(
      'docs/tasks.md',
      'src/billing/orders.service.ts',
    );
    const moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: { default: { backend: MemoryBackend, queues: ['default', 'emails'] } },
        }),
      ],
      providers: [Mailer, MailTasks, OrdersService],
    }).compile();
    await moduleRef.init();
    const orders = moduleRef.get(OrdersService);
    const first = await orders.welcomeOnce('user-7');
    expect(await orders.welcomeOnce('user-7')).toBe(first);
    expect(first).toBe('welcome:user-7');
    const waiting = await moduleRef
      .get(BackendRegistry)
      .get('default')
      .reads.peek('emails', 'ready', 10);
    expect(waiting.map((record) => record.id)).toEqual(['welcome:user-7']);
    await moduleRef.close();
  });

  it('README: the quick start’s service enqueues the digest, which the task sends', async () => {
    const { MailTasks } = load<{ MailTasks: Class }>('README.md', 'src/mail.tasks.ts');
    const { DigestService } = load<{ DigestService: Class<Digests> }>(
      'README.md',
      'src/digest.service.ts',
    );
    const moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: {
            default: {
              backend: MemoryBackend,
              queues: ['default', 'emails'],
              options: { immediate: true },
            },
          },
        }),
      ],
      providers: [MailTasks, DigestService],
    }).compile();
    await moduleRef.init();
    const digests = moduleRef.get(DigestService);
    const id = await digests.schedule('2026-01-01');
    const result = await moduleRef.get(TaskService).getResult(id);
    expect([result.task.name, result.task.queue, result.returnValue]).toEqual([
      'mail.digest',
      'emails',
      'digest for 2026-01-01 sent',
    ]);
    await moduleRef.close();
  });
});
