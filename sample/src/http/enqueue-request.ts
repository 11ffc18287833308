import { BadRequestException } from '@nestjs/common';

import type { TaskOverrides } from '../../../lib';

/** The body of `POST /tasks/:name`, checked by hand so every reason is a clear 400. */
export interface EnqueueRequest {
  args: unknown[];
  overrides: TaskOverrides;
}

const FIELDS = new Set(['args', 'priority', 'queue', 'runAfter', 'key']);

/** Turns an untrusted JSON body into arguments and overrides, or a 400 that says what is wrong. */
export function parseEnqueueRequest(body: unknown): EnqueueRequest {
  if (body === undefined || body === null || body === '') return { args: [], overrides: {} };
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestException('The body must be a JSON object: { "args": [...] }.');
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) {
    throw new BadRequestException(
      `Unknown field(s) ${unknown.map((k) => `"${k}"`).join(', ')}; expected args, priority, queue, runAfter, key.`,
    );
  }
  const { args = [], priority, queue, runAfter, key } = fields;
  if (!Array.isArray(args)) throw new BadRequestException('"args" must be a JSON array.');
  const overrides: TaskOverrides = {};
  if (priority !== undefined) {
    if (typeof priority !== 'number') throw new BadRequestException('"priority" must be a number.');
    overrides.priority = priority;
  }
  if (queue !== undefined) {
    if (typeof queue !== 'string') throw new BadRequestException('"queue" must be a string.');
    overrides.queue = queue;
  }
  if (runAfter !== undefined) {
    const date = typeof runAfter === 'string' ? new Date(runAfter) : null;
    if (date === null || Number.isNaN(date.getTime())) {
      throw new BadRequestException('"runAfter" must be an ISO 8601 date string.');
    }
    overrides.runAfter = date;
  }
  if (key !== undefined) {
    if (typeof key !== 'string') throw new BadRequestException('"key" must be a string.');
    overrides.key = key;
  }
  return { args, overrides };
}
