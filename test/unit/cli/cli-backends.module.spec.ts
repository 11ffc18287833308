import { Global, Module, type DynamicModule } from '@nestjs/common';

import { MemoryBackend, ThreadmillModule } from '../../../lib';
import { CliBackendsModule } from '../../../lib/cli/cli-backends.module';
import { ThreadmillCommandsModule } from '../../../lib/cli/threadmill-commands.module';

const forRoot = (): DynamicModule =>
  ThreadmillModule.forRoot({ isGlobal: true, backends: { memory: { backend: MemoryBackend } } });

/** A global configured module, as `ConfigModule.forRoot({ isGlobal: true })` returns. */
@Module({})
class ConfigLikeModule {
  static forRoot(): DynamicModule {
    return { module: ConfigLikeModule, global: true, providers: [], exports: [] };
  }
}

@Global()
@Module({})
class AppOwnGlobalModule {}

describe('CliBackendsModule.from', () => {
  it("finds a static forRoot among a nested module's imports and boots it alone with the commands", () => {
    const threadmill = forRoot();
    @Module({ imports: [ConfigLikeModule.forRoot(), threadmill] })
    class CoreModule {}
    @Module({ imports: [AppOwnGlobalModule, CoreModule] })
    class AppModule {}

    const module = CliBackendsModule.from(AppModule);
    expect(module?.imports).toEqual([{ ...threadmill, global: true }, ThreadmillCommandsModule]);
  });

  it("gives forRootAsync the app's global configured modules, which its factory may inject", () => {
    const config = ConfigLikeModule.forRoot();
    const threadmill = ThreadmillModule.forRootAsync({
      useFactory: () => ({ backends: { memory: { backend: MemoryBackend } } }),
      backendAliases: ['memory'],
    });
    const module = CliBackendsModule.from({
      module: class DynamicRootModule {},
      imports: [config, AppOwnGlobalModule, threadmill],
    });
    expect(module?.imports).toEqual([
      config,
      { ...threadmill, global: true },
      ThreadmillCommandsModule,
    ]);
  });

  it('looks through forward references', () => {
    const threadmill = forRoot();
    @Module({ imports: [threadmill] })
    class LaterModule {}
    @Module({ imports: [{ forwardRef: () => LaterModule }] })
    class AppModule {}
    expect(CliBackendsModule.from(AppModule)?.imports).toContainEqual({
      ...threadmill,
      global: true,
    });
  });

  it('finds nothing to boot alone without a ThreadmillModule, or with two', () => {
    @Module({ imports: [ConfigLikeModule.forRoot()] })
    class WithoutModule {}
    @Module({ imports: [forRoot(), forRoot()] })
    class WithTwoModule {}
    expect(CliBackendsModule.from(WithoutModule)).toBeUndefined();
    expect(CliBackendsModule.from(WithTwoModule)).toBeUndefined();
  });
});
