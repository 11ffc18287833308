import type { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';

import { sentinelPrimaryMoved } from './replication.messages';
import type { RedisBackendSettings } from './redis-backend-config.parser';
import type { RedisClient } from './redis-clients';
import { sentinelName } from './redis-target.parser';

/** What a watched client's owner is told of it. */
export interface WatchHooks {
  /** The alias's shared client: its errors are the ones calls report, its server the one named. */
  main: boolean;
  /** The connection is ready (again). */
  ready(): void;
}

type Listener = (...args: unknown[]) => void;

/**
 * Watches the connections of one RedisBackend alias: logs their trouble once
 * per outage (not per retry) and when they are back, with secrets masked,
 * keeps why the main one last failed, and names the server in use. Through
 * Sentinel that is the primary the main connection reached last, so after a
 * failover logs and errors name the promoted server, not the one that died,
 * and the move itself is logged. Every listener it adds can be taken off
 * again (a client handed in outlives the backend).
 *
 * @internal
 */
export class RedisConnectionWatch {
  private current: string;
  /** host:port of the primary the main connection reached last through Sentinel. */
  private primaryAt: string | null = null;
  /** Why the main connection last failed (masked), until it is ready again. */
  private lastErrorText: string | null = null;
  private readonly added = new WeakMap<RedisClient, [string, Listener][]>();

  constructor(
    private readonly settings: RedisBackendSettings,
    private readonly logger: Logger,
    private readonly closed: () => boolean,
  ) {
    this.current = settings.maskedTarget;
  }

  /** The server in use, as logs and errors name it. */
  get target(): string {
    return this.current;
  }

  get lastError(): string | null {
    return this.lastErrorText;
  }

  watch(client: RedisClient, role: string, hooks: WatchHooks): void {
    let reported = false;
    this.listen(client, 'error', (error: unknown) => {
      const text = this.mask(error instanceof Error ? error.message : String(error));
      if (hooks.main) this.lastErrorText = text.replace(/\.+$/, '');
      if (reported || this.closed()) return;
      reported = true;
      this.logger.warn(`${role} connection to ${this.current} failed: ${text} (retrying)`);
    });
    this.listen(client, 'ready', () => {
      if (hooks.main) {
        this.lastErrorText = null;
        this.follow(client, role);
      }
      hooks.ready();
      if (reported) this.logger.log(`${role} connection to ${this.current} is back`);
      reported = false;
    });
  }

  /** Calls `then` each time `client`'s connection closes. */
  onClose(client: RedisClient, then: () => void): void {
    this.listen(client, 'close', then);
  }

  /** Takes off every listener added to `client`. */
  unwatch(client: RedisClient): void {
    for (const [event, listener] of this.added.get(client) ?? []) client.off(event, listener);
    this.added.delete(client);
  }

  mask(text: string): string {
    let masked = text;
    for (const secret of this.settings.secrets) masked = masked.split(secret).join('***');
    return masked;
  }

  private listen(client: RedisClient, event: string, listener: Listener): void {
    client.on(event, listener);
    let list = this.added.get(client);
    if (!list) this.added.set(client, (list = []));
    list.push([event, listener]);
  }

  /** Names the primary a Sentinel client reached, and says so when it moved. */
  private follow(client: RedisClient, role: string): void {
    if (!(client instanceof Redis) || !client.options.sentinels?.length) return;
    const { remoteAddress, remotePort } = client.stream;
    if (!remoteAddress || !remotePort) return;
    const at = `${remoteAddress}:${remotePort}`;
    const before = this.primaryAt;
    this.primaryAt = at;
    this.current = sentinelName(client.options.name ?? '', at);
    if (before === null) this.logger.log(`${role} connection reached ${this.current}`);
    else if (before !== at) {
      this.logger.warn(sentinelPrimaryMoved(this.settings.alias, role, this.current, before));
    }
  }
}
