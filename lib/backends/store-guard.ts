import { BackendUnavailableError } from '../core/errors/backend-unavailable.error';
import { InvalidQueryError } from '../core/errors/invalid-query.error';
import { InvalidTaskError } from '../core/errors/invalid-task.error';
import { assertFinished } from '../core/finished-record';
import { invalidPeekCount } from '../core/listing.messages';
import {
  OPTIONAL_PORT_METHODS,
  PORT_METHODS,
  type BackendPartName,
} from '../core/ports/port-methods';
import { isRetry } from '../core/retry-policy';
import type { TaskBackend } from '../core/task-backend.interface';
import type { TaskRecord } from '../core/task-record.interface';
import { backendClosed, queueNotConfigured, retryNotReady } from '../core/threadmill.messages';

/** The parts of a backend, as a backend builds them before the guard. */
export type BackendParts = Pick<TaskBackend, BackendPartName>;

type Check = (args: readonly unknown[]) => void;
/** A call whose answer is known before the store: that answer, or undefined to ask the store. */
type Shortcut = (args: readonly unknown[]) => unknown;

/**
 * What stands in front of every backend, written once: each call of each
 * part first finds the backend open (BackendUnavailableError once closed),
 * then its input valid (InvalidTaskError naming the task and the fault), so
 * every backend refuses the same calls with the same errors and a backend's
 * own code stores only what passed.
 */
export class StoreGuard {
  private isClosed = false;
  protected readonly queueSet: ReadonlySet<string>;
  private readonly checks: Partial<Record<`${BackendPartName}.${string}`, Check>>;
  private readonly shortcuts: Partial<Record<`${BackendPartName}.${string}`, Shortcut>>;

  constructor(
    protected readonly alias: string,
    protected readonly queues: readonly string[],
  ) {
    this.queueSet = new Set(queues);
    const records = (args: readonly unknown[]) => args[0] as readonly TaskRecord[];
    this.checks = {
      'tasks.enqueue': (args) => this.queueOf(args[0] as TaskRecord),
      'tasks.enqueueMany': (args) => records(args).forEach((r) => this.queueOf(r)),
      'tasks.enqueueInTransaction': (args) =>
        (args[1] as readonly TaskRecord[]).forEach((r) => this.queueOf(r)),
      'leases.acknowledge': (args) => records(args).forEach(assertFinished),
      'leases.acknowledgeAndAcquire': (args) => records(args).forEach(assertFinished),
      'leases.retry': (args) => records(args).forEach((r) => this.assertRetry(r)),
      'reads.peek': (args) => assertPeekCount(args[2]),
    };
    this.shortcuts = {
      // Nothing asked, nothing read: every store answers a count of 0 alike.
      'reads.peek': (args) => (args[2] === 0 ? [] : undefined),
    };
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Every later call of a part throws BackendUnavailableError. */
  close(): void {
    this.isClosed = true;
  }

  assertOpen(): void {
    if (this.isClosed) throw new BackendUnavailableError(backendClosed(this.alias));
  }

  /** `parts` with every method of PORT_METHODS, and those of OPTIONAL_PORT_METHODS it has, behind the checks. */
  guard(parts: BackendParts): BackendParts {
    const guarded = {} as Record<BackendPartName, object>;
    for (const name of Object.keys(PORT_METHODS) as BackendPartName[]) {
      guarded[name] = this.guardPart(name, parts[name]);
    }
    return guarded as BackendParts;
  }

  private guardPart(name: BackendPartName, part: object): object {
    const guarded: Record<string, unknown> = Object.create(part) as Record<string, unknown>;
    const optional = (OPTIONAL_PORT_METHODS[name] ?? []) as readonly string[];
    const present = optional.filter((method) => method in part);
    for (const method of [...(PORT_METHODS[name] as readonly string[]), ...present]) {
      const call = (part as Record<string, (...args: unknown[]) => Promise<unknown>>)[method];
      const check = this.checks[`${name}.${method}`];
      const shortcut = this.shortcuts[`${name}.${method}`];
      // A refusal is a rejected promise like any failure of the store. The store's own promise
      // is returned as it is: no promise of the guard's on the path every task takes.
      guarded[method] = (...args: unknown[]): Promise<unknown> => {
        const refusal = this.refusalOf(check, args);
        if (refusal) return Promise.reject(refusal);
        const known = shortcut?.(args);
        return known === undefined ? call.apply(part, args) : Promise.resolve(known);
      };
    }
    return guarded;
  }

  /** Why a call must not reach the store (closed, or its input refused); null when it may. */
  private refusalOf(check: Check | undefined, args: readonly unknown[]): Error | null {
    try {
      this.assertOpen();
      check?.(args);
      return null;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  /** The record's queue; InvalidTaskError when this backend has no such queue. */
  queueOf(record: TaskRecord): string {
    const { queue } = record.task;
    if (!this.queueSet.has(queue)) {
      throw new InvalidTaskError(
        queueNotConfigured(record.task.name, queue, this.alias, this.queues),
      );
    }
    return queue;
  }

  private assertRetry(record: TaskRecord): void {
    if (!isRetry(record)) throw new InvalidTaskError(retryNotReady(record.id, record.status));
    this.queueOf(record);
  }
}

function assertPeekCount(count: unknown): void {
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
    throw new InvalidQueryError(invalidPeekCount(count));
  }
}
