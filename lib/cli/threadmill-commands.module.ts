import { Module } from '@nestjs/common';

import { InspectorCommand } from '../inspector/inspector.command';
import { WorkerCommand } from '../worker/worker.command';
import { WorkerLauncher } from '../worker/worker.launcher';
import { CommandOutputWriter } from './command-output.writer';
import { EnqueueCommand } from './enqueue.command';
import { ResultCommand } from './result.command';

/**
 * The `threadmill` command line for nest-commander: `worker` (the default
 * command), `enqueue`, `result` and `inspector`. Import it next to
 * `ThreadmillModule.forRoot({ isGlobal: true, ... })` in the module you give
 * `CommandFactory.run`, so the commands run inside your app with your tasks
 * and providers. (Global because the commands need the TaskService, the
 * TaskRunner and the backends that forRoot configured.)
 *
 * @example
 * ```ts
 * // worker.ts
 * @Module({ imports: [ThreadmillModule.forRoot({ isGlobal: true, backends }), ThreadmillCommandsModule], providers: [MailTasks] })
 * class AppModule {}
 * void CommandFactory.run(AppModule, ['log', 'warn', 'error']);
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
    InspectorCommand,
  ],
})
export class ThreadmillCommandsModule {}
