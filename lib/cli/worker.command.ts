import { availableParallelism } from 'node:os';

import { Command, Option } from 'nest-commander';

import { BackendRegistry } from '../backends/backend.registry';
import {
  AliasFlag,
  parseAliasFlag,
  aliasFlag,
  type AliasFlags,
  AliasedCommand,
} from './alias-flag';
import { CommandOutputWriter } from './command-output.writer';
import { parseName, parseWholeNumber, parseWholeNumberInRange } from './parse-option.util';
import { DEFAULT_UNKNOWN_TASK_GRACE_MS } from '../lifecycle/unknown-task';
import type { WorkerOptions } from '../worker/worker-options.interface';
import {
  unknownCommand,
  workerBackendNotConfigured,
  workerBackendNotShared,
  workerQueueNotConfigured,
} from './command.messages';
import {
  DEFAULT_HEARTBEAT_TOLERANCE_MS,
  DEFAULT_LIVENESS_TIMEOUT_MS,
  DEFAULT_THREADS,
  heartbeatTolerance,
} from '../worker/worker.constants';
import { WorkerLauncher } from '../worker/worker.launcher';

/** The `worker` options as commander hands them over (defaults not yet applied). */
export interface WorkerCommandOptions extends AliasFlags {
  queues?: string[];
  processes?: number;
  threads?: number;
  maxTasks?: number;
  maxTasksJitter?: number;
  prefetch?: number;
  exitEmpty?: boolean;
  healthPort?: number;
  livenessTimeout?: number;
  heartbeatTolerance?: number;
  unknownTaskGrace?: number;
}

/** Default `--processes`: one CPU is left for the main process, Redis and the OS. */
export const defaultProcesses = (): number => Math.max(1, availableParallelism() - 1);

/**
 * `threadmill worker`: the default command, so an app's CLI entry started
 * without arguments (`nest start --entryFile worker`) runs the pool.
 *
 * @internal
 */
@Command({
  name: 'worker',
  description:
    'Run the worker pool: a main process that maintains the store and child processes that run the queued tasks.',
  options: { isDefault: true },
})
export class WorkerCommand extends AliasedCommand {
  constructor(
    private readonly backends: BackendRegistry,
    private readonly launcher: WorkerLauncher,
    private readonly output: CommandOutputWriter,
  ) {
    super();
  }

  async run(params: string[], options: WorkerCommandOptions = {}): Promise<void> {
    // The default command receives any first word that names no command; a
    // typo must not start a pool that consumes real tasks.
    if (params.length > 0) {
      const commands = this.command.parent?.commands.map((command) => command.name()) ?? [];
      return this.output.usageError(unknownCommand(params[0], commands));
    }
    let alias: string;
    try {
      alias = aliasFlag(options) ?? this.backends.defaultAlias;
    } catch (error) {
      return this.output.refused(error);
    }
    const backend = this.backends.find(alias);
    if (!backend) {
      return this.output.usageError(workerBackendNotConfigured(alias, this.backends.aliases));
    }
    if (!backend.features.sharedAcrossProcesses) {
      return this.output.usageError(workerBackendNotShared(alias, backend.constructor.name));
    }
    const queues = options.queues ?? [...backend.queues];
    const unknown = queues.find((queue) => !backend.queues.includes(queue));
    if (unknown !== undefined) {
      return this.output.usageError(workerQueueNotConfigured(unknown, alias, backend.queues));
    }
    const resolved: WorkerOptions = {
      alias: alias,
      queues: [...new Set(queues)],
      processes: options.processes ?? defaultProcesses(),
      threads: options.threads ?? DEFAULT_THREADS,
      maxTasks: options.maxTasks ?? null,
      maxTasksJitter: options.maxTasksJitter ?? 0,
      prefetch: options.prefetch ?? 0,
      exitEmpty: options.exitEmpty ?? false,
      livenessTimeoutMs: options.livenessTimeout ?? DEFAULT_LIVENESS_TIMEOUT_MS,
      heartbeatToleranceMs: heartbeatTolerance(options.heartbeatTolerance, backend),
      unknownTaskGraceMs: options.unknownTaskGrace ?? DEFAULT_UNKNOWN_TASK_GRACE_MS,
      ...(options.healthPort !== undefined && { healthPort: options.healthPort, metrics: true }),
    };
    await this.launcher.launch(backend, resolved);
  }

  @AliasFlag('whose queues are consumed')
  parseAlias(value: string): string {
    return parseAliasFlag(value);
  }

  @Option({
    flags: '--queues <queues...>',
    description:
      'Queues to consume, in priority order (a later queue only when the earlier are empty). Default: all of the backend.',
  })
  parseQueues(value: string, previous: string[] | undefined): string[] {
    return [...(previous ?? []), parseName('--queues', value)];
  }

  @Option({
    flags: '--processes <n>',
    description: 'Child processes. Default: CPU count - 1, at least 1.',
  })
  parseProcesses(value: string): number {
    return parseWholeNumber('--processes', value, 1);
  }

  @Option({
    flags: '--threads <n>',
    description:
      'Concurrent task slots per process (async: CPU-bound tasks need processes). Default: 1.',
  })
  parseThreads(value: string): number {
    return parseWholeNumber('--threads', value, 1);
  }

  @Option({
    flags: '--max-tasks <n>',
    description: 'Recycle (replace) a child after this many tasks. Default: never.',
  })
  parseMaxTasks(value: string): number {
    return parseWholeNumber('--max-tasks', value, 1);
  }

  @Option({
    flags: '--max-tasks-jitter <n>',
    description:
      'Up to this many extra tasks per child before recycling, drawn at random. Default: 0.',
  })
  parseMaxTasksJitter(value: string): number {
    return parseWholeNumber('--max-tasks-jitter', value, 0);
  }

  @Option({
    flags: '--prefetch <n>',
    description:
      'Tasks a child may hold leased beyond its free slots, so the next one is already there when a slot frees (they count toward queue limits; one never started goes back as if never leased). Default: 0.',
  })
  parsePrefetch(value: string): number {
    return parseWholeNumber('--prefetch', value, 0);
  }

  @Option({
    flags: '--exit-empty',
    description: 'Drain the queues, then exit 0.',
  })
  parseExitEmpty(): boolean {
    return true;
  }

  @Option({
    flags: '--liveness-timeout <ms>',
    description: `Kill and replace a child whose event loop has not answered for this long (its tasks are recovered as a crash's); a task's blockingMs extends it, the lease caps it. Default: ${DEFAULT_LIVENESS_TIMEOUT_MS}.`,
  })
  parseLivenessTimeout(value: string): number {
    return parseWholeNumber('--liveness-timeout', value, 1);
  }

  @Option({
    flags: '--heartbeat-tolerance <ms>',
    description: `How long the pool's heartbeat may fail to reach the store (an outage) before other pools recover its tasks; also how long a dead pool's tasks wait for that recovery. At least two maintenance intervals. Default: ${DEFAULT_HEARTBEAT_TOLERANCE_MS}.`,
  })
  parseHeartbeatTolerance(value: string): number {
    return parseWholeNumber('--heartbeat-tolerance', value, 1);
  }

  @Option({
    flags: '--unknown-task-grace <ms>',
    description: `A task whose name this app registers no @Task for (a producer deployed before its worker) goes back for a worker that does, no attempt counted; it fails once none has taken it for this long. 0 fails it at once. Default: ${DEFAULT_UNKNOWN_TASK_GRACE_MS}.`,
  })
  parseUnknownTaskGrace(value: string): number {
    return parseWholeNumber('--unknown-task-grace', value, 0);
  }

  @Option({
    flags: '--health-port <port>',
    description:
      'Serve a liveness endpoint on this port: 200 while the pool, its maintenance passes and children are alive, else 503; and Prometheus metrics on GET /metrics (needs prom-client). Default: none.',
  })
  parseHealthPort(value: string): number {
    return parseWholeNumberInRange('--health-port', value, 1, 65535);
  }
}
