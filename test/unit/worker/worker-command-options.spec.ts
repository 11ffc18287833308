import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { OptionMeta } from 'nest-commander/src/constants';
import type { OptionMetadata } from 'nest-commander';

import { WorkerCommand } from '../../../lib/worker/worker.command';

/** Every @Option of the command, in declaration order. */
function optionMetadata(): OptionMetadata[] {
  const prototype = WorkerCommand.prototype as unknown as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype)
    .map((name) => prototype[name])
    .filter((member): member is object => typeof member === 'function')
    .map((method) => Reflect.getMetadata(OptionMeta, method) as OptionMetadata | undefined)
    .filter((meta): meta is OptionMetadata => meta !== undefined);
}

/** The rows of the README's "`worker` options" table: [flag, description]. */
function readmeRows(): [string, string][] {
  const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
  const section = readme.split('### `worker` options')[1] ?? '';
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

describe('worker command options', () => {
  it('are the flags of SPEC §5 plus the health port, one @Option parser each', () => {
    expect(optionMetadata().map((meta) => meta.flags.split(' ')[0])).toEqual([
      '--backend',
      '--queues',
      '--processes',
      '--threads',
      '--max-tasks',
      '--max-tasks-jitter',
      '--exit-empty',
      '--health-port',
    ]);
  });

  it('are listed in the README table with the same flags and descriptions', () => {
    expect(readmeRows()).toEqual(
      optionMetadata().map((meta) => [meta.flags, meta.description ?? '']),
    );
  });

  it('state their default in the description when they have one', () => {
    for (const meta of optionMetadata()) {
      if (meta.defaultValue !== undefined) {
        expect(meta.description).toContain(`Default: ${String(meta.defaultValue)}.`);
      }
    }
  });
});
