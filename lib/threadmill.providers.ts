import type { FactoryProvider, Type } from '@nestjs/common';
import { storeRules } from './lifecycle/store-rules';
import type { BackendConfig } from './core/backend-config.interface';
import { InvalidBackendConfigError } from './core/errors/invalid-backend-config.error';
import type { TaskBackend } from './core/task-backend.interface';
import {
  backendAliasNotProvided,
  invalidBackendOption,
  noBackendsConfigured,
} from './core/threadmill.messages';
import { BackendConfigReader } from './backends/backend-config.reader';
import { BackendRegistry } from './backends/backend.registry';
import { getBackendToken } from './backends/get-backend-token.util';
import { QueueService } from './queue/queue.service';
import { ThreadmillApp } from './threadmill-app';
import { THREADMILL_MODULE_OPTIONS } from './threadmill.module-definition';
import type { ThreadmillModuleOptions } from './threadmill-module-options.interface';

/**
 * Validates what every backend config shares, then constructs each backend (which
 * validates its own options). If one constructor fails, the ones already built
 * are closed, so a failed bootstrap leaves no connection open.
 *
 * @throws InvalidBackendConfigError naming the alias and the option at fault.
 */
export async function createBackendRegistry(
  options: ThreadmillModuleOptions,
  requiredAliases: readonly string[] = [],
): Promise<BackendRegistry> {
  const backends = options?.backends;
  if (typeof backends !== 'object' || backends === null || Object.keys(backends).length === 0) {
    throw new InvalidBackendConfigError(noBackendsConfigured());
  }
  // Also checked by its own provider; here too, so a bad name leaves no connection open.
  ThreadmillApp.of(options);
  // Checked before any backend is built, so this failure leaves no connection open.
  for (const alias of requiredAliases) {
    if (!Object.hasOwn(backends, alias)) {
      throw new InvalidBackendConfigError(backendAliasNotProvided(alias));
    }
  }
  const entries = Object.entries(backends);
  for (const [alias, config] of entries) validateBackendConfig(alias, config);
  const built: TaskBackend[] = [];
  try {
    for (const [alias, config] of entries)
      built.push(new config.backend(alias, config, storeRules));
  } catch (error) {
    await new BackendRegistry(built).closeAll();
    throw error;
  }
  return new BackendRegistry(built);
}

function validateBackendConfig(alias: string, config: BackendConfig | undefined): void {
  const fail = (option: string, problem: string): never => {
    throw new InvalidBackendConfigError(invalidBackendOption(alias, option, problem));
  };
  if (typeof config !== 'object' || config === null) {
    BackendConfigReader.checkShared(alias, {} as BackendConfig);
    return fail('backend', 'is missing: the alias has no config object');
  }
  if (typeof config.backend !== 'function') {
    fail('backend', 'is missing: pass a backend class such as RedisBackend or MemoryBackend');
  }
  // The same checks every backend makes as it is built, made for all aliases before any is.
  BackendConfigReader.checkShared(alias, config);
}

/**
 * The registry of every configured backend, built from the module options;
 * `injectableAliases` must be among them (their tokens are declared up front).
 *
 * @internal
 */
export function createBackendRegistryProvider(
  injectableAliases: readonly string[],
): FactoryProvider<Promise<BackendRegistry>> {
  return {
    provide: BackendRegistry,
    useFactory: (options: ThreadmillModuleOptions) =>
      createBackendRegistry(options, injectableAliases),
    inject: [THREADMILL_MODULE_OPTIONS],
  };
}

/**
 * The application's name from the module options (ThreadmillApp).
 *
 * @internal
 */
export const THREADMILL_APP_PROVIDER: FactoryProvider<ThreadmillApp> = {
  provide: ThreadmillApp,
  useFactory: (options: ThreadmillModuleOptions) => ThreadmillApp.of(options),
  inject: [THREADMILL_MODULE_OPTIONS],
};

/**
 * The services that act on the configured backends through the registry,
 * provided and exported with it.
 *
 * @internal
 */
export const BACKEND_SERVICES: readonly Type[] = [QueueService];

/**
 * One injectable token per alias (`@InjectBackend(alias)`), resolved through the
 * registry so `forRoot` and `forRootAsync` share one set of backend instances.
 *
 * @internal
 */
export function createBackendAliasProviders(aliases: readonly string[]): FactoryProvider[] {
  return aliases.map((alias) => ({
    provide: getBackendToken(alias),
    useFactory: (registry: BackendRegistry): TaskBackend => registry.get(alias),
    inject: [BackendRegistry],
  }));
}
