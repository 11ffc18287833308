import {
  Module,
  type DynamicModule,
  type ForwardReference,
  type Provider,
  type Type,
} from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';

import { ThreadmillModule } from '../threadmill.module';
import { THREADMILL_MODULE_OPTIONS } from '../threadmill.module-definition';
import { ThreadmillCommandsModule } from './threadmill-commands.module';

type ModuleImport = Type<unknown> | DynamicModule | Promise<DynamicModule> | ForwardReference;

/** What an app's module tree holds that a command without tasks can boot alone. */
interface FoundModules {
  readonly threadmill: DynamicModule[];
  /** Modules made global with a configuration (`ConfigModule.forRoot({ isGlobal: true })`). */
  readonly global: DynamicModule[];
}

const isDynamic = (entry: object): entry is DynamicModule => 'module' in entry;

const isForwardReference = (entry: object): entry is ForwardReference => 'forwardRef' in entry;

/** Whether forRoot was given its options as a value, so booting it needs nothing of the app. */
const hasStaticOptions = (module: DynamicModule): boolean =>
  (module.providers ?? []).some(
    (provider: Provider) =>
      typeof provider === 'object' &&
      provider.provide === THREADMILL_MODULE_OPTIONS &&
      'useValue' in provider,
  );

function collect(entry: ModuleImport, found: FoundModules, seen: Set<unknown>): void {
  if (entry instanceof Promise || seen.has(entry)) return;
  seen.add(entry);
  if (isForwardReference(entry)) {
    const target = (entry.forwardRef as () => ModuleImport)();
    return collect(target, found, seen);
  }
  if (isDynamic(entry)) {
    if (entry.module === ThreadmillModule) return void found.threadmill.push(entry);
    if (entry.global) found.global.push(entry);
    for (const imported of entry.imports ?? []) collect(imported, found, seen);
  }
  const type = isDynamic(entry) ? entry.module : entry;
  const imports = (Reflect.getMetadata(MODULE_METADATA.IMPORTS, type) ?? []) as ModuleImport[];
  for (const imported of imports) collect(imported, found, seen);
}

/**
 * The root module of a command that neither runs nor enqueues tasks: the
 * app's own `ThreadmillModule.forRoot(...)` and the commands, without the
 * app's providers, whose boot (connections, warm-ups) the command does not
 * need.
 *
 * @internal
 */
@Module({})
export class CliBackendsModule {
  /**
   * The module for `root`'s Threadmill configuration: forRoot with static
   * options alone; forRootAsync with its own imports and the app's global
   * configured modules, which its factory may inject. Undefined when the
   * tree holds no ThreadmillModule or more than one, or one that is added
   * later (a module promised).
   */
  static from(root: Type<unknown> | DynamicModule): DynamicModule | undefined {
    const found: FoundModules = { threadmill: [], global: [] };
    collect(root, found, new Set());
    if (found.threadmill.length !== 1) return undefined;
    const [threadmill] = found.threadmill;
    return {
      module: CliBackendsModule,
      imports: [
        ...(hasStaticOptions(threadmill) ? [] : found.global),
        // Global as the app has it (ThreadmillCommandsModule needs that): the commands inject its services.
        { ...threadmill, global: true },
        ThreadmillCommandsModule,
      ],
    };
  }
}
