import { InvalidCommandOptionError } from '../core/errors/invalid-command-option.error';

/**
 * Option parsers shared by the commands. Each throws InvalidCommandOptionError,
 * which commander prints after naming the flag and the value, and exits 2.
 */

/** A whole number of at least `min` (digits only: "1e3", "0x10" or "2.5" are refused, not guessed). */
export function parseWholeNumber(flag: string, value: string, min: number): number {
  const parsed = /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min) {
    throw new InvalidCommandOptionError(
      invalidOptionValue(flag, `a whole number of at least ${min}`),
    );
  }
  return parsed;
}

import { invalidOptionValue } from './command.messages';

/** A whole number in `min..max` (a task priority). */
export function parseWholeNumberInRange(
  flag: string,
  value: string,
  min: number,
  max: number,
): number {
  const parsed = /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new InvalidCommandOptionError(
      invalidOptionValue(flag, `a whole number from ${min} to ${max}`),
    );
  }
  return parsed;
}

/** A JSON array (a task's arguments). */
export function parseJsonArray(flag: string, value: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidCommandOptionError(
      invalidOptionValue(flag, `a JSON array of arguments (${reason})`),
    );
  }
  if (!Array.isArray(parsed)) {
    throw new InvalidCommandOptionError(
      invalidOptionValue(flag, 'a JSON array of arguments, e.g. \'["a", 1]\''),
    );
  }
  return parsed;
}

/** An ISO 8601 date-time with an explicit zone (`2030-01-01T12:00:00Z`), so no local time is guessed. */
export function parseIsoDate(flag: string, value: string): Date {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
  const parsed = new Date(value);
  if (!iso.test(value) || Number.isNaN(parsed.getTime())) {
    throw new InvalidCommandOptionError(
      invalidOptionValue(flag, 'an ISO 8601 date-time with a zone, e.g. 2030-01-01T12:00:00Z'),
    );
  }
  return parsed;
}

/** A queue or alias name: anything non-empty; whether it is configured is checked once the app is known. */
export function parseName(flag: string, value: string): string {
  if (value.trim() === '') {
    throw new InvalidCommandOptionError(invalidOptionValue(flag, 'a non-empty name'));
  }
  return value;
}
