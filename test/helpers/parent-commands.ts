import { MODULE_METADATA } from '@nestjs/common/constants';
import { CommandMeta, SubCommandMeta } from 'nest-commander/src/constants';

import { ThreadmillCommandsModule } from '../../lib/cli/threadmill-commands.module';

interface Meta {
  name: string;
  subCommands?: (abstract new (...args: never[]) => unknown)[];
}

/** A command of the CLI that has subcommands: its class, name and its subcommands' names. */
export interface ParentCommandInfo {
  readonly type: abstract new (...args: never[]) => unknown;
  readonly command: string;
  readonly subcommands: string[];
}

/** Every command of ThreadmillCommandsModule with subcommands, as their decorators declare them. */
export function parentCommands(): ParentCommandInfo[] {
  const providers = Reflect.getMetadata(
    MODULE_METADATA.PROVIDERS,
    ThreadmillCommandsModule,
  ) as (abstract new (...args: never[]) => unknown)[];
  return providers.flatMap((type) => {
    const meta = Reflect.getMetadata(CommandMeta, type) as Meta | undefined;
    if (!meta?.subCommands?.length) return [];
    const subcommands = meta.subCommands.map(
      (sub) => (Reflect.getMetadata(SubCommandMeta, sub) as Meta).name,
    );
    return [{ type, command: meta.name, subcommands }];
  });
}
