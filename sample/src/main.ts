import 'reflect-metadata';

import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

import { sampleConfig } from './sample.config';
import { WebModule } from './web.module';

/** The sample's web app: `POST /tasks/:name`, `GET /tasks/:id`, `GET /health`. */
async function main(): Promise<void> {
  const app = await NestFactory.create(WebModule, { logger: sampleConfig.logLevels });
  // Closes the backends on SIGTERM / Ctrl-C, so no connection is left dangling.
  app.enableShutdownHooks();
  await app.listen(sampleConfig.port, '127.0.0.1');
  new Logger('Sample').log(`Listening on http://127.0.0.1:${sampleConfig.port}`);
}

void main();
