import { WorkerCommand } from '../../../lib/cli/worker.command';
import { commandOptions, documentedOptionRows } from '../../helpers/command-options';

const optionMetadata = () => commandOptions(WorkerCommand);
const documentedRows = () => documentedOptionRows('### `worker` options');

describe('worker command options', () => {
  it('are the pool flags, the liveness timeout and the health port, one @Option parser each', () => {
    expect(optionMetadata().map((meta) => meta.flags.split(' ')[0])).toEqual([
      '--alias',
      '--queues',
      '--processes',
      '--threads',
      '--max-tasks',
      '--max-tasks-jitter',
      '--prefetch',
      '--exit-empty',
      '--liveness-timeout',
      '--heartbeat-tolerance',
      '--unknown-task-grace',
      '--health-port',
      '--backend',
    ]);
  });

  it('are listed in the docs table with the same flags and descriptions', () => {
    expect(documentedRows()).toEqual(
      optionMetadata().map((meta) => [meta.flags, meta.description ?? '']),
    );
  });

  it('take a --prefetch of 0 or more and refuse anything else, naming the flag', () => {
    // The parser reads nothing of the command's state.
    const parse = (value: string) => WorkerCommand.prototype.parsePrefetch(value);
    expect(parse('0')).toBe(0);
    expect(parse('2')).toBe(2);
    for (const bad of ['-1', '1.5', 'two']) {
      expect(() => parse(bad)).toThrow('--prefetch expects a whole number of at least 0.');
    }
  });

  it('state their default in the description when they have one', () => {
    for (const meta of optionMetadata()) {
      if (meta.defaultValue !== undefined) {
        expect(meta.description).toContain(`Default: ${String(meta.defaultValue)}.`);
      }
    }
  });
});
