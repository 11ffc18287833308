import { Inject, Injectable, NotFoundException, type OnModuleInit } from '@nestjs/common';
import { invalidDashboardOption, unknownDashboardAlias } from './dashboard.messages';
import { InvalidDashboardOptionError } from '../core/errors/invalid-dashboard-option.error';
import { shown, shownList } from '../core/shown';
import type { TaskBackend } from '../core/task-backend.interface';
import { BackendRegistry } from '../backends/backend.registry';
import type { BackendKind } from './dashboard-api.interface';
import { DASHBOARD_SETTINGS, type DashboardSettings } from './dashboard-settings';

const KINDS: Readonly<Record<string, BackendKind>> = {
  RedisBackend: 'redis',
  SqliteBackend: 'sqlite',
  PostgresBackend: 'postgres',
  MemoryBackend: 'memory',
};

/** The kind of a backend, its subclasses included (told by class name: SQLite's and Postgres's are optional peers). */
export function backendKind(backend: TaskBackend): BackendKind {
  for (let proto: unknown = Object.getPrototypeOf(backend); proto;) {
    const name = (proto as { constructor?: { name?: string } }).constructor?.name ?? '';
    if (Object.hasOwn(KINDS, name)) return KINDS[name];
    proto = Object.getPrototypeOf(proto);
  }
  return 'other';
}

/**
 * The backends the dashboard shows (the `aliases` option, else every
 * configured one), by alias; an alias it does not show is unknown to it.
 *
 * @internal
 */
@Injectable()
export class DashboardBackends implements OnModuleInit {
  constructor(
    private readonly registry: BackendRegistry,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
  ) {}

  /** @throws InvalidDashboardOptionError at boot for an alias that is not configured. */
  onModuleInit(): void {
    for (const alias of this.settings.options.aliases ?? []) {
      if (this.registry.find(alias) === undefined) {
        throw new InvalidDashboardOptionError(
          invalidDashboardOption(
            'aliases',
            `names ${shown(alias)}, which ThreadmillModule does not configure (configured: ${shownList(this.registry.aliases)})`,
          ),
        );
      }
    }
  }

  get aliases(): string[] {
    return [...(this.settings.options.aliases ?? this.registry.aliases)];
  }

  /** The backend of `alias`, or the default one when absent. @throws NotFoundException (404). */
  get(alias: string | undefined): TaskBackend {
    const aliases = this.aliases;
    const chosen =
      alias === undefined || alias === ''
        ? aliases.includes(this.registry.defaultAlias)
          ? this.registry.defaultAlias
          : aliases[0]
        : alias;
    if (chosen === undefined || !aliases.includes(chosen)) {
      throw new NotFoundException(unknownDashboardAlias(String(chosen), aliases));
    }
    return this.registry.get(chosen);
  }

  list(): { alias: string; kind: BackendKind }[] {
    return this.aliases.map((alias) => ({ alias, kind: backendKind(this.registry.get(alias)) }));
  }
}
