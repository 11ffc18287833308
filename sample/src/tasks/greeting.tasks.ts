import { Injectable } from '@nestjs/common';

import { Task, TaskContext } from '../../../lib';
import { GreetingService } from './greeting.service';

/** A task that takes its context and uses an injected provider. */
@Injectable()
export class GreetingTasks {
  constructor(private readonly greetings: GreetingService) {}

  @Task({ name: 'sample.greet', queue: 'emails', takesContext: true })
  greet(context: TaskContext, name: string): { greeting: string; attempt: number; id: string } {
    return {
      greeting: this.greetings.greet(name),
      attempt: context.attempt,
      id: context.taskResult.id,
    };
  }
}
