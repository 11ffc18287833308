/**
 * The user-facing sentences of schedules, written once (as threadmill.messages.ts).
 */
import { SCHEDULE_ID_MAX_LENGTH } from './validate-name.util';

const shown = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(value) : String(value);

export const invalidScheduleId = (id: unknown, where: string): string =>
  `Schedule ${shown(id)} (${where}): the id is invalid; use 1-${SCHEDULE_ID_MAX_LENGTH} characters, ` +
  `each a letter, a digit or one of - _ . : (give a shorter \`id\` when the derived one is too long).`;

export const scheduleTimingMissing = (id: string): string =>
  `Schedule "${id}": give exactly one of \`cron\` (a cron expression) and \`every\` (an interval in ms).`;

export const invalidCron = (id: string, cron: unknown, reason: string): string =>
  `Schedule "${id}": cron ${shown(cron)} is invalid (${reason}). Use 5 fields ` +
  `(minute hour day-of-month month day-of-week), or 6 with seconds first, e.g. "0 3 * * *".`;

export const unknownTimezone = (id: string, timezone: unknown): string =>
  `Schedule "${id}": time zone ${shown(timezone)} is unknown; use an IANA name such as ` +
  `"Europe/Berlin" or "UTC".`;

export const invalidEvery = (id: string, every: unknown, minMs: number, maxMs: number): string =>
  `Schedule "${id}": every ${shown(every)} is invalid; use a whole number of milliseconds from ${minMs} to ${maxMs}.`;

export const scheduleNeverTicks = (id: string, cron: string): string =>
  `Schedule "${id}": cron "${cron}" never matches a date to come (such as February 30); fix the expression.`;

export const invalidCatchUp = (id: string, problem: string): string =>
  `Schedule "${id}": catchUp.${problem}.`;

export const invalidScheduleArgs = (id: string, task: string): string =>
  `Schedule "${id}": args must be an array: the arguments of task "${task}" for each tick.`;

export const invalidOverlap = (id: string, overlap: unknown): string =>
  `Schedule "${id}": overlap ${shown(overlap)} is invalid; use "allow" or "skip".`;

export const scheduleTaskNotRegistered = (
  id: string,
  task: string,
  names: readonly string[],
): string =>
  `Schedule "${id}": no @Task named "${task}" is registered in this application (registered: ${
    names.length === 0 ? 'none' : names.map((n) => `"${n}"`).join(', ')
  }). Check the name, or that its provider is part of the application.`;

export const duplicateScheduleId = (id: string, first: string, second: string): string =>
  `Two declared schedules have the id "${id}" (on ${first} and on ${second}); give each its own \`id\`.`;

export const scheduleNotFound = (id: string, alias: string): string =>
  `No schedule "${id}" is stored on backend "${alias}". List them with \`threadmill schedules list\`.`;

export const backendStoresNoSchedules = (alias: string): string =>
  `Backend "${alias}" cannot store schedules; configure a Redis, SQLite or memory backend.`;

export const scheduleTickFailed = (id: string, error: unknown): string =>
  `Schedule "${id}": its due ticks were not enqueued this pass (the next pass tries again): ${
    error instanceof Error ? error.message : String(error)
  }`;

export const schedulePassFailed = (error: unknown): string =>
  `The due schedules could not be read (the next maintenance pass tries again): ${
    error instanceof Error ? error.message : String(error)
  }`;

export const corruptSchedule = (id: string): string =>
  `Schedule "${id}" is stored with a definition this version cannot read; it is left as it is. ` +
  `Add it again (ScheduleService.add or \`threadmill schedules add\`) or remove it.`;

export const schedulesSynced = (
  alias: string,
  counts: { added: number; changed: number; removed: number },
): string =>
  `Declared schedules of backend "${alias}" synced: ${counts.added} added, ${counts.changed} changed, ${counts.removed} removed.`;

export const scheduleSyncFailed = (alias: string, error: unknown): string =>
  `The declared schedules of backend "${alias}" could not be synced; the schedules stored ` +
  `before keep running: ${error instanceof Error ? error.message : String(error)}`;

export const scheduleCommandNeedsTiming = (): string =>
  'schedules add: give exactly one of --cron <expression> and --every <ms>.';

export const scheduleSubcommandMissing = (subcommands: readonly string[]): string =>
  `schedules: name what to do: ${subcommands.join(', ')} (see --help).`;
