import type { Logger } from '@nestjs/common';
import type { Client, Notification } from 'pg';
import { BackendUnavailableError } from '../../core/errors/backend-unavailable.error';
import { backendClosed } from '../../core/threadmill.messages';
import type { PostgresConnection } from './postgres-connection';
import type { PostgresDriver } from './postgres-driver';
import { postgresListenerLost } from './postgres.messages';

/** Wait before connecting the listener again after it was lost. */
const RECONNECT_MS = 1000;

/**
 * The one connection of a PostgresBackend that LISTENs (not from the pool:
 * a pooled connection is handed to others between calls), to `listenUrl`
 * (a pooler in transaction mode would hand its session to others too). Connected for the
 * first channel, it keeps every channel asked for and connects again when
 * lost, LISTENing to them all again; `onRestored` then runs, since what was
 * notified while it was away is gone (idle consumers look again at once).
 *
 * @internal
 */
export class PostgresListener {
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private readonly handlers = new Map<string, (payload: string) => void>();
  private closed = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly alias: string,
    private readonly connection: PostgresConnection,
    private readonly driver: PostgresDriver,
    private readonly logger: Logger,
    private readonly onRestored: () => void,
  ) {}

  /** Whether the connection is up now (else waits fall back to their safety poll). */
  get up(): boolean {
    return this.client !== null;
  }

  /** Resolves once `channel` is LISTENed to: every notification committed from then on reaches `handler`. */
  async listen(channel: string, handler: (payload: string) => void): Promise<void> {
    const known = this.handlers.has(channel);
    this.handlers.set(channel, handler);
    const client = await this.connect();
    if (!known) await client.query(`LISTEN "${channel}"`);
  }

  async unlisten(channel: string): Promise<void> {
    if (!this.handlers.delete(channel)) return;
    if (this.client) await this.client.query(`UNLISTEN "${channel}"`);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // A connect under way that fails has nothing to close; its error was the caller's to see.
    const client = this.client ?? (await this.connecting?.catch(() => null));
    this.client = null;
    await client?.end();
  }

  private connect(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open(): Promise<Client> {
    this.connection.assertOpen();
    await this.connection.ready;
    const client = new this.driver.Client(this.connection.clientConfig({ listener: true }));
    client.on('notification', (message: Notification) =>
      this.handlers.get(message.channel)?.(message.payload ?? ''),
    );
    client.on('error', (error: Error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('Connection terminated')));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN "${channel}"`);
    } catch (error) {
      await client.end().catch((endError: unknown) => {
        this.logger.warn(`Closing a failed listener of "${this.alias}": ${String(endError)}`);
      });
      throw this.connection.failure(error, true);
    }
    if (this.closed) {
      await client.end();
      throw new BackendUnavailableError(backendClosed(this.alias));
    }
    this.client = client;
    return client;
  }

  private lost(client: Client, error: Error): void {
    if (this.client !== client) return;
    this.client = null;
    if (this.closed) return;
    this.logger.warn(postgresListenerLost(this.alias, error.message));
    client.removeAllListeners('end');
    client.end().catch((endError: unknown) => {
      this.logger.debug?.(`Closing the lost listener of "${this.alias}": ${String(endError)}`);
    });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.timer || this.handlers.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect().then(this.onRestored, (error: unknown) => {
        this.logger.warn(postgresListenerLost(this.alias, String(error)));
        this.scheduleReconnect();
      });
    }, RECONNECT_MS);
    this.timer.unref();
  }
}
