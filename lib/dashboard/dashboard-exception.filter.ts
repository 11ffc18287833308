import {
  Catch,
  HttpException,
  HttpStatus,
  Logger,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { dashboardFailed, dashboardRequestFailedLog } from './dashboard.messages';
import { BackendUnavailableError } from '../core/errors/backend-unavailable.error';
import { InvalidQueryError } from '../core/errors/invalid-query.error';
import { InvalidTaskError } from '../core/errors/invalid-task.error';
import { TaskResultDoesNotExist } from '../core/errors/task-result-does-not-exist.error';
import { UnknownBackendError } from '../core/errors/unknown-backend.error';
import { UnknownQueueError } from '../core/errors/unknown-queue.error';
import { UnknownScheduleError } from '../core/errors/unknown-schedule.error';

/** Errors whose message is about the request (never about the store's address), with their status. */
const TOLD: readonly [new (...args: never[]) => Error, number][] = [
  [TaskResultDoesNotExist, HttpStatus.NOT_FOUND],
  [UnknownQueueError, HttpStatus.NOT_FOUND],
  [UnknownScheduleError, HttpStatus.NOT_FOUND],
  [UnknownBackendError, HttpStatus.NOT_FOUND],
  [InvalidTaskError, HttpStatus.BAD_REQUEST],
  [InvalidQueryError, HttpStatus.BAD_REQUEST],
];

/** What the page is told of an error. */
export interface DashboardErrorBody {
  error: { name: string; message: string };
}

/**
 * Answers every error of a dashboard route as `{ error: { name, message } }`
 * with its status, through the app's HTTP adapter (Express or Fastify). An
 * error that is not about the request (a store that did not answer, a bug)
 * is logged whole and told only in general terms: its message may name a
 * host or a path the page must not see.
 *
 * @internal
 */
@Catch()
export class DashboardExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ThreadmillDashboard');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const { status, body } = this.describe(error, http.getRequest());
    this.adapterHost.httpAdapter.reply(http.getResponse(), body, status);
  }

  private describe(error: unknown, request: unknown): { status: number; body: DashboardErrorBody } {
    const told = (status: number, name: string, message: string) => ({
      status,
      body: { error: { name, message } },
    });
    if (error instanceof HttpException) {
      return told(error.getStatus(), error.name, error.message);
    }
    const known = TOLD.find(([type]) => error instanceof type);
    if (known && error instanceof Error) return told(known[1], error.name, error.message);
    const { httpAdapter } = this.adapterHost;
    this.logger.error(
      dashboardRequestFailedLog(
        String(httpAdapter.getRequestMethod?.(request)),
        String(httpAdapter.getRequestUrl?.(request)),
      ),
      error instanceof Error ? error.stack : String(error),
    );
    const unavailable = error instanceof BackendUnavailableError;
    return told(
      unavailable ? HttpStatus.SERVICE_UNAVAILABLE : HttpStatus.INTERNAL_SERVER_ERROR,
      unavailable ? error.name : 'Error',
      dashboardFailed(),
    );
  }
}
