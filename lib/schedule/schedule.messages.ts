/**
 * The user-facing sentences of schedules, written once (as threadmill.messages.ts).
 */
import { SCHEDULE_ID_MAX_LENGTH } from '../core/validate-name.util';
import { shown, shownList } from '../core/shown';

export const invalidScheduleId = (id: unknown, where: string): string =>
  `Schedule ${shown(id)} (${where}): the id is invalid; use 1-${SCHEDULE_ID_MAX_LENGTH} characters, ` +
  `each a letter, a digit or one of - _ . : (give a shorter \`id\` when the derived one is too long).`;

export const scheduleTimingMissing = (id: string): string =>
  `Schedule ${shown(id)}: give exactly one of \`cron\` (a cron expression) and \`every\` (an interval in ms).`;

export const invalidCron = (id: string, cron: unknown, reason: string): string =>
  `Schedule ${shown(id)}: cron ${shown(cron)} is invalid (${reason}). Use 5 fields ` +
  `(minute hour day-of-month month day-of-week), or 6 with seconds first, e.g. "0 3 * * *".`;

export const unknownTimezone = (id: string, timezone: unknown): string =>
  `Schedule ${shown(id)}: time zone ${shown(timezone)} is unknown; use an IANA name such as ` +
  `"Europe/Berlin" or "UTC".`;

export const invalidEvery = (id: string, every: unknown, minMs: number, maxMs: number): string =>
  `Schedule ${shown(id)}: every ${shown(every)} is invalid; use a whole number of milliseconds from ${minMs} to ${maxMs}.`;

export const scheduleNeverTicks = (id: string, cron: string): string =>
  `Schedule ${shown(id)}: cron ${shown(cron)} never matches a date to come (such as February 30); fix the expression.`;

export const invalidCatchUp = (id: string, problem: string): string =>
  `Schedule ${shown(id)}: catchUp.${problem}.`;

export const invalidScheduleArgs = (id: string, task: string): string =>
  `Schedule ${shown(id)}: args must be an array: the arguments of task ${shown(task)} for each tick.`;

/** What a schedule's args are called where they are refused (assertJsonSafe's `what`). */
export const scheduleArgs = (id: string): string => `schedule ${shown(id)} args`;

export const invalidOverlap = (id: string, overlap: unknown): string =>
  `Schedule ${shown(id)}: overlap ${shown(overlap)} is invalid; use "allow" or "skip".`;

export const scheduleTaskNotRegistered = (
  id: string,
  task: string,
  names: readonly string[],
): string =>
  `Schedule ${shown(id)}: no @Task named ${shown(task)} is registered in this application (registered: ${
    names.length === 0 ? 'none' : shownList(names)
  }). Check the name, or that its provider is part of the application.`;

export const duplicateScheduleId = (id: string, first: string, second: string): string =>
  `Two declared schedules have the id ${shown(id)} (on ${first} and on ${second}); give each its own \`id\`.`;

export const scheduleNotFound = (id: string, alias: string): string =>
  `No schedule ${shown(id)} is stored on backend ${shown(alias)}. List them with \`threadmill schedules list\`.`;

export const scheduleTickFailed = (id: string, error: unknown): string =>
  `Schedule ${shown(id)}: its due ticks were not enqueued this pass (the next pass tries again): ${
    error instanceof Error ? error.message : String(error)
  }`;

export const schedulePassFailed = (error: unknown): string =>
  `The due schedules could not be read (the next maintenance pass tries again): ${
    error instanceof Error ? error.message : String(error)
  }`;

export const corruptSchedule = (id: string): string =>
  `Schedule ${shown(id)} is stored with a definition this version cannot read; it is left as it is. ` +
  `Add it again (ScheduleService.add or \`threadmill schedules add\`) or remove it.`;

export const schedulesSynced = (
  alias: string,
  counts: { added: number; changed: number; removed: number },
): string =>
  `Declared schedules of backend ${shown(alias)} synced: ${counts.added} added, ${counts.changed} changed, ${counts.removed} removed.`;

export const scheduleTakenOver = (id: string, from: string, app: string): string =>
  `Declared schedule ${shown(id)} was app ${shown(from)}'s and is now app ${shown(app)}'s: both ` +
  `declare this id on one store, so each pool that starts takes it over. Give one of them another ` +
  `\`id\`, or its own Redis prefix or backend.`;

export const scheduleSyncFailed = (alias: string, error: unknown): string =>
  `The declared schedules of backend ${shown(alias)} could not be synced; the schedules stored ` +
  `before keep running: ${error instanceof Error ? error.message : String(error)}`;

export const scheduleCommandNeedsTiming = (): string =>
  'schedules add: give exactly one of --cron <expression> and --every <ms>.';

export const scheduleSubcommandMissing = (subcommands: readonly string[]): string =>
  `schedules: name what to do: ${subcommands.join(', ')} (see --help).`;
