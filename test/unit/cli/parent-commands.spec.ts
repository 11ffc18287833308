import { ParentCommand } from '../../../lib/cli/parent-command';
import { parentCommands } from '../../helpers/parent-commands';

describe('commands with subcommands', () => {
  it('are all ParentCommands, so each refuses a word that names none of its subcommands', () => {
    const found = parentCommands();
    expect(found.map((parent) => parent.command).sort()).toEqual(['queues', 'schedules']);
    for (const { type } of found) expect(type.prototype).toBeInstanceOf(ParentCommand);
  });
});
