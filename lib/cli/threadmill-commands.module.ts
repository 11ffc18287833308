import { Module } from '@nestjs/common';

import { InspectorCommand } from './inspector.command';
import { WorkerCommand } from './worker.command';
import { WorkerLauncher } from '../worker/worker.launcher';
import { CommandOutputWriter } from './command-output.writer';
import { CancelCommand } from './cancel.command';
import { RemoveCommand } from './remove.command';
import { RetryCommand } from './retry.command';
import { EnqueueCommand } from './enqueue.command';
import { QueuesLimitCommand } from './queues-limit.command';
import { QueuesListCommand } from './queues-list.command';
import { QueuesPauseCommand } from './queues-pause.command';
import { QueuesResumeCommand } from './queues-resume.command';
import { QueuesCommand } from './queues.command';
import { ResultCommand } from './result.command';
import { SchedulesAddCommand } from './schedules-add.command';
import { SchedulesListCommand } from './schedules-list.command';
import { SchedulesRemoveCommand } from './schedules-remove.command';
import { SchedulesRunCommand } from './schedules-run.command';
import { SchedulesCommand } from './schedules.command';
import { MigrateCommand } from './migrate.command';

/**
 * The `threadmill` commands: `worker` (the default command), `enqueue`,
 * `result`, `cancel`, `queues` (`list`, `pause`, `resume`,
 * `limit`), `schedules`,
 * `inspector` and `migrate`. Import it next to `ThreadmillModule.forRoot({ isGlobal: true,
 * ... })` in the module you give `runThreadmillCli`, so the
 * commands run inside your app with your tasks and providers (`isGlobal`,
 * because the commands need the TaskService, the QueueService, the TaskRunner
 * and the backends that forRoot configured).
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [ThreadmillModule.forRoot({ isGlobal: true, backends: { ... } }), ThreadmillCommandsModule],
 *   providers: [MailTasks],
 * })
 * export class WorkerModule {}
 * ```
 * @publicApi
 */
@Module({
  providers: [
    CommandOutputWriter,
    WorkerLauncher,
    WorkerCommand,
    EnqueueCommand,
    ResultCommand,
    CancelCommand,
    RetryCommand,
    RemoveCommand,
    QueuesCommand,
    QueuesListCommand,
    QueuesPauseCommand,
    QueuesResumeCommand,
    QueuesLimitCommand,
    InspectorCommand,
    SchedulesCommand,
    SchedulesListCommand,
    SchedulesAddCommand,
    SchedulesRemoveCommand,
    SchedulesRunCommand,
    MigrateCommand,
  ],
})
export class ThreadmillCommandsModule {}
