import { PostgresBackend } from '../../lib/backends/postgres/postgres.backend';
import type { BackendConfig } from '../../lib/core/backend-config.interface';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import { storeRules } from '../../lib/lifecycle/store-rules';
import { BackendRunner } from '../backend.runner';
import { currentThreadmillApi } from '../task-service.producer';
import type { PostgresQueueRunner } from './postgres-queue-runner';

const ALIAS = 'bench';
const QUEUE = 'default';
/** Bulk enqueues outstanding while filling: the pool's connections overlap them. */
const FILL_IN_FLIGHT = 4;

/**
 * Threadmill on its Postgres backend with its defaults (schema `threadmill`,
 * a pool of 10 connections), driven as the Redis and SQLite runners are
 * (BackendRunner: the worker child's consumer in this process, enqueues
 * through TaskService).
 */
export class ThreadmillPostgresRunner extends BackendRunner implements PostgresQueueRunner {
  readonly name = 'Threadmill';
  private opened: PostgresBackend | null = null;
  private url = '';

  constructor(readonly version: string) {
    super(QUEUE, FILL_IN_FLIGHT, currentThreadmillApi);
  }

  protected get backend(): TaskBackend {
    if (this.opened === null) throw new Error('Threadmill on Postgres: used before connect');
    return this.opened;
  }

  protected backendConfig(): BackendConfig {
    return { backend: PostgresBackend, url: this.url, queues: [QUEUE] };
  }

  async connect(url: string): Promise<void> {
    this.url = url;
    this.opened = new PostgresBackend(ALIAS, this.backendConfig(), storeRules);
    await this.opened.ping();
  }

  async disconnect(): Promise<void> {
    const backend = this.opened;
    this.opened = null;
    try {
      await this.closeProducer();
    } finally {
      await backend?.close();
    }
  }

  close(): Promise<void> {
    return this.disconnect();
  }
}
