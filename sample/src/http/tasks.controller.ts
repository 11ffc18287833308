import {
  BadRequestException,
  Body,
  Controller,
  Get,
  HttpCode,
  HttpStatus,
  NotFoundException,
  Param,
  Post,
} from '@nestjs/common';

import {
  InvalidTaskError,
  TaskResultDoesNotExist,
  TaskControlService,
  TaskService,
  type CancelOutcome,
  type TaskRecord,
} from '../../../lib';
import { sampleConfig } from '../sample.config';
import { parseEnqueueRequest } from './enqueue-request';

/**
 * Enqueue any registered task by name and read results back: what a web app
 * that hands work to the pool does.
 */
@Controller('tasks')
export class TasksController {
  constructor(
    private readonly tasks: TaskService,
    private readonly control: TaskControlService,
  ) {}

  /**
   * `POST /tasks/sample.echo` with `{ "args": [1, 2] }` → 202 `{ "id": "...", "created": true }`.
   * With `"key"`, a task that holds the key answers instead (`created: false`).
   */
  @Post(':name')
  @HttpCode(HttpStatus.ACCEPTED)
  async enqueue(
    @Param('name') name: string,
    @Body() body: unknown,
  ): Promise<{ id: string; created: boolean }> {
    const { args, overrides } = parseEnqueueRequest(body);
    // A name from a request: only tasks this app (whose pool runs them) registers.
    if (!this.tasks.isRegistered(name)) {
      throw new BadRequestException(`No @Task named ${JSON.stringify(name)} is registered here.`);
    }
    try {
      const [result] = await this.tasks.enqueueByName(name, [args], {
        alias: sampleConfig.alias,
        ...overrides,
      });
      return { id: result.id, created: result.created };
    } catch (error) {
      if (error instanceof InvalidTaskError) throw new BadRequestException(error.message);
      throw error;
    }
  }

  /**
   * `POST /tasks/:id/cancel` → `{ "outcome": "cancelled" | "requested" | "already-final", "result": ... }`,
   * or 404 when it never existed or expired.
   */
  @Post(':id/cancel')
  @HttpCode(HttpStatus.OK)
  async cancel(@Param('id') id: string): Promise<{ outcome: CancelOutcome; result: TaskRecord }> {
    try {
      const { outcome, result } = await this.control.cancel(id, { alias: sampleConfig.alias });
      return { outcome, result: result.toRecord() };
    } catch (error) {
      if (error instanceof TaskResultDoesNotExist) throw new NotFoundException(error.message);
      throw error;
    }
  }

  /** `GET /tasks/:id` → the TaskResult, or 404 when it never existed or expired. */
  @Get(':id')
  async result(@Param('id') id: string): Promise<TaskRecord> {
    try {
      return (await this.tasks.getResult(id, sampleConfig.alias)).toRecord();
    } catch (error) {
      if (error instanceof TaskResultDoesNotExist) throw new NotFoundException(error.message);
      throw error;
    }
  }
}
