// First: tracing (when THREADMILL_TRACE_FILE is set) must wrap `http` before anything loads it.
import './tracing/tracing';
import 'reflect-metadata';

import { runThreadmillCli } from '../../lib/cli';
import { AppModule } from './app.module';
import { sampleConfig } from './sample.config';

/**
 * The sample's CLI entry: `node sample-dist/sample/src/worker.js [command]`,
 * `npm run -s cli -- <command>`, or `nest start sample --entryFile worker`.
 * Without a command it runs `worker` (the pool).
 */
void runThreadmillCli(AppModule, { logLevels: sampleConfig.logLevels });
