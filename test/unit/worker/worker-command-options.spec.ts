import { WorkerCommand } from '../../../lib/worker/worker.command';
import { commandOptions, documentedOptionRows } from '../../helpers/command-options';

const optionMetadata = () => commandOptions(WorkerCommand);
const documentedRows = () => documentedOptionRows('### `worker` options');

describe('worker command options', () => {
  it('are the pool flags, the liveness timeout and the health port, one @Option parser each', () => {
    expect(optionMetadata().map((meta) => meta.flags.split(' ')[0])).toEqual([
      '--backend',
      '--queues',
      '--processes',
      '--threads',
      '--max-tasks',
      '--max-tasks-jitter',
      '--exit-empty',
      '--liveness-timeout',
      '--heartbeat-tolerance',
      '--health-port',
    ]);
  });

  it('are listed in the docs table with the same flags and descriptions', () => {
    expect(documentedRows()).toEqual(
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
