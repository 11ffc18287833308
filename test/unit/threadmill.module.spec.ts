import { Injectable, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { Test } from '@nestjs/testing';

import {
  BackendRegistry,
  BackendUnavailableError,
  InjectBackend,
  InvalidBackendConfigError,
  MemoryBackend,
  TaskService,
  ThreadmillModule,
  getBackendToken,
  type BackendConfig,
  type TaskBackend,
  type ThreadmillModuleOptions,
} from '../../lib';
import { Greeter, GreetingTasks } from '../fixtures/greeting.tasks';
import { storeRules } from '../../lib/lifecycle/store-rules';

/** Remembers every instance, so a test can check that a failed bootstrap closed them. */
class TrackedMemoryBackend extends MemoryBackend {
  static readonly built: TrackedMemoryBackend[] = [];
  constructor(alias: string, config: BackendConfig) {
    super(alias, config, storeRules);
    TrackedMemoryBackend.built.push(this);
  }
}

@Injectable()
class BackendUser {
  constructor(
    @InjectBackend() readonly main: TaskBackend,
    @InjectBackend('reports') readonly reports: TaskBackend,
  ) {}
}

async function bootstrap(options: ThreadmillModuleOptions): Promise<void> {
  const moduleRef = await Test.createTestingModule({
    imports: [ThreadmillModule.forRoot(options)],
  }).compile();
  await moduleRef.close();
}

describe('ThreadmillModule', () => {
  describe('configuration errors fail bootstrap, naming alias and option', () => {
    it.each([
      [
        'no backends',
        { backends: {} },
        'ThreadmillModule has no backends: pass { backends: { default: { backend: RedisBackend, url } } }.',
      ],
      [
        'a missing backend class',
        { backends: { default: { queues: ['default'] } } },
        'Threadmill backend "default": option "backend" is missing: pass a backend class such as RedisBackend or MemoryBackend.',
      ],
      [
        'an invalid alias',
        { backends: { 'bad alias': { backend: MemoryBackend } } },
        'The backend alias name "bad alias" is invalid',
      ],
      [
        'empty queues',
        { backends: { main: { backend: MemoryBackend, queues: [] } } },
        'Threadmill backend "main": option "queues" must be a non-empty array of queue names.',
      ],
      [
        'an invalid queue name',
        { backends: { main: { backend: MemoryBackend, queues: ['a:b'] } } },
        'Threadmill backend "main": option "queues" is invalid: The queue name "a:b" is invalid',
      ],
      [
        'a queue listed twice',
        { backends: { main: { backend: MemoryBackend, queues: ['a', 'a'] } } },
        'Threadmill backend "main": option "queues" lists a queue twice.',
      ],
      [
        'an option the backend class does not know',
        { backends: { main: { backend: MemoryBackend, options: { url: 'x' } } } },
        'Threadmill backend "main": option "url" is not an option of MemoryBackend',
      ],
      [
        'a negative TTL',
        { backends: { main: { backend: MemoryBackend, options: { resultTtl: -5 } } } },
        'Threadmill backend "main": option "resultTtl" must be a positive whole number of milliseconds, got -5.',
      ],
      [
        'an app name with a colon',
        { app: 'billing:v2', backends: { main: { backend: MemoryBackend } } },
        'ThreadmillModule option "app" "billing:v2" is invalid: use 1-200 characters without whitespace, "{", "}" or ":"',
      ],
      [
        'an empty app name',
        { app: '', backends: { main: { backend: MemoryBackend } } },
        'ThreadmillModule option "app" "" is invalid',
      ],
      [
        'an app name that is no string',
        { app: 42, backends: { main: { backend: MemoryBackend } } },
        'ThreadmillModule option "app" 42 is invalid',
      ],
    ])('%s', async (_label, options, message) => {
      const attempt = bootstrap(options as unknown as ThreadmillModuleOptions);
      await expect(attempt).rejects.toThrow(InvalidBackendConfigError);
      await expect(bootstrap(options as unknown as ThreadmillModuleOptions)).rejects.toThrow(
        message,
      );
    });

    it('closes the backends it already built when a later alias fails', async () => {
      TrackedMemoryBackend.built.length = 0;
      await expect(
        bootstrap({
          backends: {
            first: { backend: TrackedMemoryBackend },
            second: { backend: TrackedMemoryBackend, options: { bogus: true } },
          },
        }),
      ).rejects.toThrow('option "bogus"');
      expect(TrackedMemoryBackend.built).toHaveLength(1);
      await expect(TrackedMemoryBackend.built[0].ping()).rejects.toThrow(BackendUnavailableError);
    });
  });

  it('refuses an invalid app name before building any backend', async () => {
    TrackedMemoryBackend.built.length = 0;
    await expect(
      bootstrap({ app: 'has space', backends: { first: { backend: TrackedMemoryBackend } } }),
    ).rejects.toThrow(InvalidBackendConfigError);
    expect(TrackedMemoryBackend.built).toHaveLength(0);
  });

  describe('forRoot', () => {
    it('makes each alias injectable, and closes every backend on app.close()', async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [
          ThreadmillModule.forRoot({
            backends: {
              default: { backend: MemoryBackend },
              reports: { backend: MemoryBackend, queues: ['daily'] },
            },
          }),
        ],
        providers: [BackendUser],
      }).compile();
      const app = moduleRef.createNestApplication({ logger: false });
      await app.init();
      const user = app.get(BackendUser);
      const registry = app.get(BackendRegistry);
      expect(user.main).toBe(registry.get('default'));
      expect(user.reports).toBe(registry.get('reports'));
      expect(user.reports.queues).toEqual(['daily']);
      expect(app.get(getBackendToken('reports'))).toBe(user.reports);
      await app.close();
      await expect(user.main.ping()).rejects.toThrow(BackendUnavailableError);
      await expect(user.reports.ping()).rejects.toThrow(BackendUnavailableError);
    });

    it('with isGlobal, serves TaskService to modules that do not import it', async () => {
      @Injectable()
      class Signup {
        constructor(readonly tasks: TaskService) {}
      }
      @Module({ providers: [Signup, Greeter, GreetingTasks] })
      class FeatureModule {}
      const moduleRef = await Test.createTestingModule({
        imports: [
          ThreadmillModule.forRoot({
            isGlobal: true,
            backends: { default: { backend: MemoryBackend } },
          }),
          FeatureModule,
        ],
      }).compile();
      await moduleRef.init();
      const result = await moduleRef.get(Signup).tasks.enqueue(GreetingTasks, 'greet', ['Ada']);
      expect(result.task.name).toBe('GreetingTasks.greet');
      await moduleRef.close();
    });
  });

  describe('forRootAsync', () => {
    const configured = () =>
      ConfigModule.forRoot({
        ignoreEnvFile: true,
        load: [() => ({ threadmill: { queues: ['default', 'emails'], leaseTtl: 5000 } })],
      });

    it('builds the backends from ConfigService', async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [
          ThreadmillModule.forRootAsync({
            imports: [configured()],
            inject: [ConfigService],
            useFactory: (config: ConfigService) => ({
              backends: {
                default: {
                  backend: MemoryBackend,
                  queues: config.getOrThrow<string[]>('threadmill.queues'),
                  options: { leaseTtl: config.getOrThrow<number>('threadmill.leaseTtl') },
                },
                reports: { backend: MemoryBackend },
              },
            }),
            backendAliases: ['default', 'reports'],
          }),
        ],
        providers: [BackendUser],
      }).compile();
      await moduleRef.init();
      const user = moduleRef.get(BackendUser);
      expect(user.main.queues).toEqual(['default', 'emails']);
      expect(user.reports.alias).toBe('reports');
      await moduleRef.close();
      await expect(user.main.ping()).rejects.toThrow(BackendUnavailableError);
    });

    it('fails bootstrap, before building any backend, when backendAliases names one the factory did not configure', async () => {
      TrackedMemoryBackend.built.length = 0;
      const attempt = Test.createTestingModule({
        imports: [
          ThreadmillModule.forRootAsync({
            useFactory: () => ({ backends: { other: { backend: TrackedMemoryBackend } } }),
          }),
        ],
      }).compile();
      await expect(attempt).rejects.toThrow(
        'Threadmill backend "default" is listed in forRootAsync({ backendAliases })',
      );
      expect(TrackedMemoryBackend.built).toEqual([]);
    });

    it('validates what the factory returns like forRoot does', async () => {
      const attempt = Test.createTestingModule({
        imports: [
          ThreadmillModule.forRootAsync({
            useFactory: async () => ({
              backends: { default: { backend: MemoryBackend, queues: ['a b'] } },
            }),
          }),
        ],
      }).compile();
      await expect(attempt).rejects.toThrow(
        'Threadmill backend "default": option "queues" is invalid',
      );
    });
  });
});
