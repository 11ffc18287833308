import { InspectorCommand } from '../../../lib/cli/inspector.command';
import { commandOptions, documentedOptionRows } from '../../helpers/command-options';

const optionMetadata = () => commandOptions(InspectorCommand);
const documentedRows = () => documentedOptionRows('### `inspector` options');

describe('inspector command options', () => {
  it('are exactly the documented flags, one @Option parser each', () => {
    expect(optionMetadata().map((meta) => meta.flags)).toEqual([
      '--alias <alias>',
      '--backend <alias>',
    ]);
  });

  it('are listed in the docs table with the same flags and descriptions', () => {
    expect(documentedRows()).toEqual(
      optionMetadata().map((meta) => [meta.flags, meta.description ?? '']),
    );
  });
});
