import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { OptionMeta } from 'nest-commander/src/constants';
import type { OptionMetadata } from 'nest-commander';

const ROOT = join(__dirname, '..', '..');

/**
 * Every @Option of a nest-commander command class, in declaration order, a
 * base class's after the class's own (nest-commander reads them up the
 * prototype chain too).
 */
export function commandOptions(
  command: abstract new (...args: never[]) => unknown,
): OptionMetadata[] {
  const options: OptionMetadata[] = [];
  const seen = new Set<string>();
  for (
    let prototype = command.prototype as Record<string, unknown> | null;
    prototype !== null && prototype !== Object.prototype;
    prototype = Object.getPrototypeOf(prototype) as Record<string, unknown> | null
  ) {
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const member = prototype[name];
      if (seen.has(name) || typeof member !== 'function') continue;
      seen.add(name);
      const meta = Reflect.getMetadata(OptionMeta, member) as OptionMetadata | undefined;
      if (meta !== undefined) options.push(meta);
    }
  }
  return options;
}

/** README.md and the guides of docs/, each as [path, text]. */
function documentationPages(): [string, string][] {
  const guides = readdirSync(join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file));
  return ['README.md', ...guides].map((page) => [page, readFileSync(join(ROOT, page), 'utf8')]);
}

/**
 * The rows of the options table under `heading` (e.g. "### `worker` options")
 * in the one page of the documentation that has it: [flag, description].
 */
export function documentedOptionRows(heading: string): [string, string][] {
  const pages = documentationPages().filter(([, text]) => text.split('\n').includes(heading));
  if (pages.length !== 1) {
    throw new Error(
      `"${heading}" must head a table in exactly one page of README.md and docs/, found in ${pages.length}`,
    );
  }
  const section = pages[0][1].split(heading)[1] ?? '';
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
