import type { BackendConfig } from '../core/backend-config.interface';
import type { QueueLimits } from '../core/queue-limits';
import { InvalidBackendConfigError } from '../core/errors/invalid-backend-config.error';
import { shown } from '../core/shown';
import { FINISHED_STATUSES } from '../core/task-result-status.enum';
import { DEFAULT_QUEUE } from '../core/threadmill.constants';
import { invalidBackendOption, invalidName } from '../core/threadmill.messages';
import { NAME_MAX_LENGTH, isValidName } from '../core/validate-name.util';
import { Retention, statusKey, type RetentionOptions } from '../core/retention';
import { readQueueEntry } from './queue-config.reader';

/** The settings every backend resolves from the options all backends have (same meaning and defaults). */
export interface CommonBackendSettings {
  /** Longest a started task may stay unacknowledged before it is failed (AcknowledgementTimeout). */
  leaseTtl: number;
  /** How long results and history are kept. */
  resultTtl: number;
  /** Period of the maintenance pass the worker pool runs. */
  maintenanceInterval: number;
  /** Most tasks promoted, reaped or recovered per maintenance pass. */
  batchSize: number;
  /** How long and how many finished tasks are kept, by queue and status. */
  retention: Retention;
  /** The configured limits by queue: they seed the store's while it has none for the queue. */
  limits: Readonly<Record<string, QueueLimits>>;
}

/** A 1 h lease, results kept 1 day, a maintenance pass every second moving at most 100 tasks. */
export const COMMON_BACKEND_DEFAULTS = {
  leaseTtl: 60 * 60 * 1000,
  resultTtl: 24 * 60 * 60 * 1000,
  maintenanceInterval: 1000,
  batchSize: 100,
} as const;

const COMMON_OPTIONS = [...Object.keys(COMMON_BACKEND_DEFAULTS), 'retention'];

const STATUS_KEYS: readonly string[] = [...FINISHED_STATUSES].map(statusKey);

/** A configured value as an error message shows it (strings quoted, so "100" is told from 100). */
export function shownValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    // BigInt and cyclic values cannot be stringified; their type is enough to point at the mistake.
    return typeof value;
  }
}

/**
 * The one reading of a backend alias's configuration, shared by every
 * backend (and by the module, which checks every alias before it builds
 * any), so a mistake is refused the same way whichever class it names: the
 * alias and the queue names, an unknown option, and the value of each
 * option, every problem an InvalidBackendConfigError naming alias and option.
 * A backend reads its own options through the same methods.
 */
export class BackendConfigReader {
  /** The names of the queues the alias serves, checked. */
  readonly queues: string[];
  /** The limits configured beside the queue names, by queue (only limited queues). */
  readonly limits: Readonly<Record<string, QueueLimits>>;
  private readonly options: Record<string, unknown>;

  /**
   * @param backendName the class, for the list of known options (`RedisBackend`).
   * @param ownOptions the options this backend has besides the common ones.
   */
  constructor(
    readonly alias: string,
    config: BackendConfig,
    backendName: string,
    ownOptions: readonly string[],
  ) {
    const entries = BackendConfigReader.checkShared(alias, config);
    this.queues = entries.map((entry) => entry.name as string);
    const limits: Record<string, QueueLimits> = {};
    for (const entry of entries) if (entry.limits) limits[entry.name as string] = entry.limits;
    this.limits = limits;
    const options: unknown = config.options ?? {};
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      this.fail('options', 'must be an object of options');
    }
    this.options = options as Record<string, unknown>;
    const known = [...COMMON_OPTIONS, ...ownOptions];
    for (const key of Object.keys(this.options)) {
      if (!known.includes(key)) {
        this.fail(key, `is not an option of ${backendName} (known: ${known.join(', ')})`);
      }
    }
  }

  /**
   * What every alias must satisfy whatever its backend: its name, its queue
   * names and their limits. Each queue's name and limits.
   */
  static checkShared(alias: string, config: BackendConfig): ReturnType<typeof readQueueEntry>[] {
    if (!isValidName(alias)) {
      throw new InvalidBackendConfigError(invalidName('backend alias', String(alias)));
    }
    const fail = (problem: string): never => {
      throw new InvalidBackendConfigError(invalidBackendOption(alias, 'queues', problem));
    };
    const queues: unknown = config.queues ?? [DEFAULT_QUEUE];
    if (!Array.isArray(queues) || queues.length === 0) {
      fail('must be a non-empty array of queue names');
    }
    const entries = (queues as unknown[]).map((entry, index) =>
      readQueueEntry(entry, index, (option, problem) => {
        throw new InvalidBackendConfigError(invalidBackendOption(alias, option, problem));
      }),
    );
    for (const { name } of entries) {
      if (!isValidName(name)) fail(`is invalid: ${invalidName('queue', String(name))}`);
    }
    if (new Set(entries.map((entry) => entry.name)).size !== entries.length) {
      fail('lists a queue twice');
    }
    return entries;
  }

  /** The common options, each checked, defaults filled in. */
  common(): CommonBackendSettings {
    const resultTtl = this.milliseconds('resultTtl', COMMON_BACKEND_DEFAULTS.resultTtl);
    return {
      leaseTtl: this.milliseconds('leaseTtl', COMMON_BACKEND_DEFAULTS.leaseTtl),
      resultTtl,
      maintenanceInterval: this.milliseconds(
        'maintenanceInterval',
        COMMON_BACKEND_DEFAULTS.maintenanceInterval,
      ),
      batchSize: this.wholeNumber('batchSize', COMMON_BACKEND_DEFAULTS.batchSize, 1),
      retention: new Retention(this.retentionOptions(), resultTtl, this.queues),
      limits: this.limits,
    };
  }

  /** `retention`, every limit checked: a known status or configured queue, whole positive numbers. */
  private retentionOptions(): RetentionOptions {
    const given = this.options.retention;
    if (given === undefined) return {};
    const byStatus = (where: string, value: unknown, allowQueues: boolean): void => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        this.fail(where, 'must be an object of limits by status');
      }
      for (const [key, limit] of Object.entries(value as Record<string, unknown>)) {
        if (allowQueues && key === 'queues') continue;
        if (!STATUS_KEYS.includes(key)) {
          this.fail(
            where,
            `has ${shown(key)}, which is not a final status (${STATUS_KEYS.join(', ')})`,
          );
        }
        const path = `${where}.${key}`;
        if (typeof limit !== 'object' || limit === null || Array.isArray(limit)) {
          this.fail(path, 'must be { maxAgeMs?, maxCount? }');
        }
        for (const [field, number] of Object.entries(limit as Record<string, unknown>)) {
          if (field !== 'maxAgeMs' && field !== 'maxCount') {
            this.fail(path, `has ${shown(field)}; the limits are maxAgeMs and maxCount`);
          }
          if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1) {
            this.fail(
              `${path}.${field}`,
              `must be a whole number of at least 1, got ${shownValue(number)}`,
            );
          }
        }
      }
    };
    byStatus('retention', given, true);
    const queues: unknown = (given as RetentionOptions).queues;
    if (queues !== undefined) {
      if (typeof queues !== 'object' || queues === null || Array.isArray(queues)) {
        this.fail('retention.queues', 'must be an object of limits by queue');
      }
      for (const [queue, limits] of Object.entries(queues as Record<string, unknown>)) {
        if (!this.queues.includes(queue)) {
          this.fail('retention.queues', `names ${shown(queue)}, which this backend does not serve`);
        }
        byStatus(`retention.queues.${queue}`, limits, false);
      }
    }
    return given as RetentionOptions;
  }

  /** A value as given (undefined when absent), for an option this reader has no method for. */
  raw(option: string): unknown {
    return this.options[option];
  }

  /** A positive whole number of milliseconds. */
  milliseconds(option: string, fallback: number): number {
    const value = this.options[option] ?? fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      this.fail(
        option,
        `must be a positive whole number of milliseconds, got ${shownValue(value)}`,
      );
    }
    return value;
  }

  /** A whole number of at least `min`. */
  wholeNumber(option: string, fallback: number, min: number): number {
    const value = this.options[option] ?? fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
      this.fail(option, `must be a whole number of at least ${min}, got ${shownValue(value)}`);
    }
    return value;
  }

  /** true or false. */
  flag(option: string, fallback: boolean): boolean {
    const value = this.options[option] ?? fallback;
    if (typeof value !== 'boolean')
      this.fail(option, `must be true or false, got ${shownValue(value)}`);
    return value;
  }

  /** A name as queue and alias names are (see isValidName): it goes into storage keys as it is. */
  name(option: string, fallback: string): string {
    const value = this.options[option] ?? fallback;
    if (!isValidName(value)) {
      this.fail(
        option,
        `must be 1-${NAME_MAX_LENGTH} characters without whitespace, "{", "}" or ":" ` +
          `(they would break the storage key layout), got ${shownValue(value)}`,
      );
    }
    return value;
  }

  /** One of `choices`. */
  oneOf<T extends string>(option: string, choices: readonly T[], fallback: T): T {
    const value = this.options[option] ?? fallback;
    if (!choices.includes(value as T)) {
      const listed = choices.map(shown).join(' or ');
      this.fail(option, `must be ${listed}, got ${shownValue(value)}`);
    }
    return value as T;
  }

  /** Refuses `option` with `problem` (a sentence part: "must be ..."). */
  fail(option: string, problem: string): never {
    throw new InvalidBackendConfigError(invalidBackendOption(this.alias, option, problem));
  }
}
