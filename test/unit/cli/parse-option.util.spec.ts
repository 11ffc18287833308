import { InvalidCommandOptionError } from '../../../lib/core/errors/invalid-command-option.error';
import {
  parseIsoDate,
  parseJsonArray,
  parseName,
  parseWholeNumber,
  parseWholeNumberInRange,
} from '../../../lib/cli/parse-option.util';

/** The error a parser threw, so its fields can be checked. */
function thrownBy(parse: () => unknown): InvalidCommandOptionError {
  try {
    parse();
  } catch (error) {
    if (error instanceof InvalidCommandOptionError) return error;
    throw error;
  }
  throw new InvalidCommandOptionError('the parser accepted the value');
}

describe('option parsers', () => {
  it('throw an error commander prints as a usage error and exits 2 on', () => {
    const error = thrownBy(() => parseWholeNumber('--processes', 'two', 1));
    expect(error.code).toBe('commander.invalidArgument');
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe('--processes expects a whole number of at least 1.');
  });

  it('parseWholeNumber accepts digits at or above the minimum only', () => {
    expect(parseWholeNumber('--threads', '8', 1)).toBe(8);
    expect(parseWholeNumber('--max-tasks-jitter', '0', 0)).toBe(0);
    for (const bad of ['0', '-1', '2.5', '1e3', '0x10', '', ' ', 'NaN', '99999999999999999999']) {
      expect(() => parseWholeNumber('--threads', bad, 1)).toThrow(InvalidCommandOptionError);
    }
  });

  it('parseWholeNumberInRange refuses values outside the range', () => {
    expect(parseWholeNumberInRange('--priority', '-100', -100, 100)).toBe(-100);
    expect(() => parseWholeNumberInRange('--priority', '101', -100, 100)).toThrow(
      '--priority expects a whole number from -100 to 100.',
    );
  });

  it('parseJsonArray accepts a JSON array and names what is wrong otherwise', () => {
    expect(parseJsonArray('--args', '[1, "a", {"b": null}]')).toEqual([1, 'a', { b: null }]);
    expect(thrownBy(() => parseJsonArray('--args', '{bad')).message).toMatch(
      /^--args expects a JSON array of arguments \(.+\)\.$/,
    );
    expect(() => parseJsonArray('--args', '{"a": 1}')).toThrow(InvalidCommandOptionError);
  });

  it('parseIsoDate accepts ISO 8601 with a zone and nothing it would have to guess', () => {
    expect(parseIsoDate('--run-after', '2030-01-01T12:00:00Z').toISOString()).toBe(
      '2030-01-01T12:00:00.000Z',
    );
    expect(parseIsoDate('--run-after', '2030-01-01T12:00:00.5+02:00').toISOString()).toBe(
      '2030-01-01T10:00:00.500Z',
    );
    for (const bad of ['tomorrow', '2030-01-01', '2030-01-01T12:00:00', '2030-13-01T00:00:00Z']) {
      expect(() => parseIsoDate('--run-after', bad)).toThrow(InvalidCommandOptionError);
    }
  });

  it('parseName refuses an empty name', () => {
    expect(parseName('--queue', 'emails')).toBe('emails');
    expect(() => parseName('--queue', ' ')).toThrow('--queue expects a non-empty name.');
  });
});
