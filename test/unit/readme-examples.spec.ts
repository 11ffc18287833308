// The README's examples, compiled by tsc and run here. Each `#region readme:<name>`
// block must appear verbatim in README.md (the last test checks), so the
// documentation cannot drift from code that works.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';

import {
  BackendRegistry,
  MemoryBackend,
  Task,
  TaskContext,
  TaskResultStatus,
  TaskService,
  ThreadmillModule,
} from '../../lib';

// #region readme:define
@Injectable()
export class Mailer {
  readonly sent: string[] = [];

  async send(to: string, subject: string): Promise<void> {
    this.sent.push(`${to}: ${subject}`);
  }
}

@Injectable()
export class MailTasks {
  constructor(private readonly mailer: Mailer) {}

  @Task({ queue: 'emails', priority: 10 })
  async sendWelcome(userId: string): Promise<string> {
    await this.mailer.send(userId, 'Welcome!');
    return `welcomed ${userId}`;
  }

  @Task({ name: 'mail.digest' })
  async sendDigest(context: TaskContext, day: string): Promise<number> {
    // The worker passes the context; callers enqueue only `day`.
    await this.mailer.send('everyone', `Digest for ${day} (attempt ${context.attempt})`);
    return 1;
  }
}
// #endregion

// #region readme:enqueue
@Injectable()
export class SignupService {
  constructor(private readonly tasks: TaskService) {}

  async signUp(userId: string): Promise<string> {
    // Checked by the compiler: [userId] must match sendWelcome(userId: string).
    const result = await this.tasks.enqueue(MailTasks, 'sendWelcome', [userId]);
    return result.id;
  }

  async sendDigestTomorrow(day: string): Promise<void> {
    const digest = this.tasks.task(MailTasks, 'sendDigest');
    await digest.using({ runAfter: new Date(Date.now() + 86_400_000), priority: -10 }).enqueue(day);
  }
}
// #endregion

// #region readme:testing
describe('SignupService', () => {
  it('sends the welcome mail', async () => {
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
      providers: [Mailer, MailTasks, SignupService],
    }).compile();
    await moduleRef.init();

    const id = await moduleRef.get(SignupService).signUp('user-1');

    const result = await moduleRef.get(TaskService).getResult<string>(id);
    expect(result.status).toBe(TaskResultStatus.SUCCESSFUL);
    expect(result.returnValue).toBe('welcomed user-1');
    expect(moduleRef.get(Mailer).sent).toEqual(['user-1: Welcome!']);
    await moduleRef.close();
  });
});
// #endregion

describe('README examples', () => {
  it('defers a task on a backend that defers', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: { default: { backend: MemoryBackend, queues: ['default', 'emails'] } },
        }),
      ],
      providers: [Mailer, MailTasks, SignupService],
    }).compile();
    await moduleRef.init();
    await moduleRef.get(SignupService).sendDigestTomorrow('2026-12-01');
    const deferred = await moduleRef
      .get(BackendRegistry)
      .get('default')
      .peek('default', 'deferred', 10);
    expect(deferred.map((record) => [record.task.name, record.args, record.task.priority])).toEqual(
      [['mail.digest', ['2026-12-01'], -10]],
    );
    await moduleRef.close();
  });

  it('shows each example verbatim in README.md', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    const source = readFileSync(__filename, 'utf8');
    const regions = [...source.matchAll(/\/\/ #region readme:(\w+)\n([\s\S]*?)\/\/ #endregion/g)];
    expect(regions.map(([, name]) => name)).toEqual(['define', 'enqueue', 'testing']);
    for (const [, name, code] of regions) {
      expect({ name, inReadme: readme.includes(code.trim()) }).toEqual({ name, inReadme: true });
    }
  });
});
