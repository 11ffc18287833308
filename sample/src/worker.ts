import 'reflect-metadata';

import { Logger } from '@nestjs/common';
import { CommandFactory } from 'nest-commander';

import { AppModule } from './app.module';
import { sampleConfig } from './sample.config';
import { StderrLogger } from './stderr.logger';

/**
 * The sample's CLI entry: `node sample-dist/sample/src/worker.js [command]`,
 * `npm run -s cli -- <command>`, or `nest start sample --entryFile worker`.
 * Without a command it runs `worker` (the pool).
 */
async function main(): Promise<void> {
  // The levels Logger.isLevelEnabled answers from (the worker asks it once whether to log each task).
  Logger.overrideLogger(sampleConfig.logLevels);
  await CommandFactory.run(AppModule, {
    cliName: 'threadmill',
    logger: new StderrLogger({ logLevels: sampleConfig.logLevels }),
    // A command that throws (not a usage error: those exit 2 by themselves) exits 1.
    serviceErrorHandler: (error) => {
      process.stderr.write(`${error.stack ?? error.message}\n`);
      process.exitCode = 1;
    },
  });
}

void main();
