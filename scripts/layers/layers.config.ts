// The layers of lib/, bottom to top.
// `npm run lint` and `npm test` run the check (scripts/check-layers.ts).

/** One layer: the folders and files of lib/ it holds, and why it sits where it does. */
export interface Layer {
  name: string;
  /** Folders (ending in `/`) and files, relative to the repo. A folder may be absent. */
  holds: readonly string[];
  /** What it imports, which puts it where it is. */
  why: string;
}

/**
 * Bottom to top. A file may import a file of its own layer or of a lower level;
 * the layers of one level sit beside each other and import none of each other.
 */
export const LEVELS: readonly (readonly Layer[])[] = [
  [
    {
      name: 'core',
      holds: ['lib/core/'],
      why: 'records, contracts, rules and messages: imports nothing else of lib/',
    },
  ],
  [
    {
      name: 'utils',
      holds: ['lib/utils/'],
      why: "small helpers; a promise timeout throws core's OperationTimeoutError",
    },
  ],
  [
    {
      name: 'lifecycle',
      holds: ['lib/lifecycle/'],
      why: 'decides what an ended attempt or a maintenance pass does, from core alone',
    },
    {
      name: 'backends',
      holds: ['lib/backends/'],
      why: 'the stores, over core and utils: a store applies what the lifecycle decides',
    },
    {
      name: 'telemetry',
      holds: ['lib/telemetry/'],
      why: 'spans over core and utils, wrapped around work done in the layers above',
    },
  ],
  [
    {
      name: 'module options',
      holds: [
        'lib/threadmill-module-options.interface.ts',
        'lib/threadmill.module-definition.ts',
        'lib/threadmill-app.ts',
      ],
      why: "ThreadmillModule's options, their injection token and the app's name, from core",
    },
  ],
  [
    {
      name: 'task',
      holds: ['lib/task/'],
      why: 'tasks, their enqueue and events: backends, and telemetry for the PRODUCER span',
    },
    {
      name: 'queue',
      holds: ['lib/queue/'],
      why: "QueueService, over the backends' queue state",
    },
    {
      name: 'metrics',
      holds: ['lib/metrics/'],
      why: "Prometheus metrics: backends' store gauges and the module's metrics option",
    },
  ],
  [
    {
      name: 'schedule',
      holds: ['lib/schedule/'],
      why: "enqueues due ticks through task's registry and TaskService",
    },
  ],
  [
    {
      name: 'worker',
      holds: ['lib/worker/'],
      why: 'the pool, its children and the in-process worker: runs tasks and schedules, counts metrics',
    },
  ],
  [
    {
      name: 'module',
      holds: ['lib/threadmill.module.ts', 'lib/threadmill.providers.ts', 'lib/index.ts'],
      why: 'ThreadmillModule and the main entry point: assemble every layer below',
    },
    {
      name: 'health',
      holds: ['lib/health/'],
      why: "the health indicator reads the worker pool's and the in-process worker's health",
    },
  ],
  [
    {
      name: 'inspector',
      holds: ['lib/inspector/'],
      why: 'the terminal UI over backends and schedule definitions; the cli starts it',
    },
  ],
  [
    {
      name: 'cli',
      holds: ['lib/cli/'],
      why: 'the commands: boot the module, start a worker pool or the inspector',
    },
    {
      name: 'dashboard',
      holds: ['lib/dashboard/'],
      why: "the web dashboard, over task, queue and schedule services and the worker's log listener",
    },
    {
      name: 'backend-kit',
      holds: ['lib/backend-kit/'],
      why: "`/backend` and its contract suite, which drives the task layer's controls and a worker child's start check over each backend",
    },
    {
      name: 'testing',
      holds: ['lib/testing/'],
      why: "`/testing`: the memory backend, the worker's task runner and the maintenance pass, for an app's tests",
    },
  ],
];
