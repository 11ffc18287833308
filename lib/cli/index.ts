// `@threadmill/nestjs/cli`: the command line, which needs the optional peer
// nest-commander. An app that only enqueues never loads this entry point.
export { ThreadmillCommandsModule } from './threadmill-commands.module';
export { runThreadmillCli, type ThreadmillCliOptions } from './run-threadmill-cli';
export { StderrLogger } from './stderr.logger';
export { ExitCode } from '../core/exit-code';
export { InvalidCommandOptionError } from '../core/errors/invalid-command-option.error';
