// First: tracing (when THREADMILL_TRACE_FILE is set) must wrap `http` before anything loads it.
import './tracing/tracing';
import 'reflect-metadata';

import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

import { sampleConfig } from './sample.config';
import { WebModule } from './web.module';

/** The sample's web app: `POST /tasks/:name`, `GET /tasks/:id`, `GET /health`, `/threadmill`. */
async function main(): Promise<void> {
  const app = await NestFactory.create(WebModule, { logger: sampleConfig.logLevels });
  // Closes the backends on SIGTERM / Ctrl-C, so no connection is left dangling.
  app.enableShutdownHooks();
  // Started by `npm start` with an IPC channel: when that supervisor dies (even
  // by SIGKILL) the channel closes, and the app stops instead of holding the port.
  if (process.connected) {
    process.once('disconnect', () => void app.close());
    process.channel?.unref();
  }
  await app.listen(sampleConfig.port, '127.0.0.1');
  new Logger('Sample').log(`Listening on http://127.0.0.1:${sampleConfig.port}`);
}

void main();
