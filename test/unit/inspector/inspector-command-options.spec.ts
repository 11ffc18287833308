import { InspectorCommand } from '../../../lib/inspector/inspector.command';
import { commandOptions, readmeOptionRows } from '../../helpers/command-options';

const optionMetadata = () => commandOptions(InspectorCommand);
const readmeRows = () => readmeOptionRows('### `inspector` options');

describe('inspector command options', () => {
  it('are exactly the documented flags, one @Option parser each', () => {
    expect(optionMetadata().map((meta) => meta.flags)).toEqual(['--backend <alias>']);
  });

  it('are listed in the README table with the same flags and descriptions', () => {
    expect(readmeRows()).toEqual(
      optionMetadata().map((meta) => [meta.flags, meta.description ?? '']),
    );
  });
});
