import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { OptionMeta } from 'nest-commander/src/constants';
import type { OptionMetadata } from 'nest-commander';

/** Every @Option of a nest-commander command class, in declaration order. */
export function commandOptions(
  command: abstract new (...args: never[]) => unknown,
): OptionMetadata[] {
  const prototype = command.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype)
    .map((name) => prototype[name])
    .filter((member): member is object => typeof member === 'function')
    .map((method) => Reflect.getMetadata(OptionMeta, method) as OptionMetadata | undefined)
    .filter((meta): meta is OptionMetadata => meta !== undefined);
}

/** The rows of the README table under `heading` (e.g. "### `worker` options"): [flag, description]. */
export function readmeOptionRows(heading: string): [string, string][] {
  const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
  const section = readme.split(heading)[1] ?? '';
  const table = section.slice(0, section.search(/\n\s*\n(?!\|)/));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [flag, description] = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      return [flag.replace(/^`|`$/g, ''), description];
    });
}
