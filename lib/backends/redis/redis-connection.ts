import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';

import { BackendUnavailableError } from '../../core/errors/backend-unavailable.error';
import type { StoreCondition } from '../../core/store-condition';
import { redisUnavailable } from '../../core/threadmill.messages';
import type { RedisBackendSettings } from './redis-backend-config.parser';
import { BLOCK_SLICE_MS, RedisBlockingWaits } from './redis-blocking-waits';
import {
  blockingCopy,
  createRedisClient,
  failInFlight,
  type RedisClient,
  subscriberCopy,
} from './redis-clients';
import { RedisConnectionWatch } from './redis-connection-watch';
import { redisCallError, type LostReply } from './redis-errors';
import { RedisKeys } from './redis-keys';
import { RedisServerCheck } from './redis-server-check';

/** How much later than its timeout a BLPOP reply may come before the connection counts as dead. */
const BLOCK_SLICE_GRACE_MS = 5000;

/**
 * The connections of one RedisBackend alias: one shared client for every
 * command, and the blocking clients of its idle waits (see
 * RedisBlockingWaits), made and closed here like the shared one.
 * Turns every Redis failure into the typed error that says what it was (see
 * redisCallError), with the password masked. A client handed in gets the
 * same error listener and in-flight protection as one made here (removed
 * again on close: the client is the user's).
 *
 * @internal
 */
export class RedisConnection {
  readonly client: RedisClient;
  /** The idle waits for wake-up tokens, each on a blocking client of its own. */
  readonly blockingWaits: RedisBlockingWaits;
  private readonly ownsClient: boolean;
  private readonly logger: Logger;
  private isClosed = false;
  private readonly serverCheck: RedisServerCheck;
  /** Connection trouble logged, and the server in use named (see RedisConnectionWatch). */
  private readonly watcher: RedisConnectionWatch;

  constructor(private readonly settings: RedisBackendSettings) {
    this.logger = new Logger(`RedisBackend:${settings.alias}`);
    const { target } = settings;
    const created = target.kind === 'client' ? target.client : createRedisClient(settings);
    if (created === null) {
      throw new BackendUnavailableError(
        redisUnavailable(settings.alias, settings.maskedTarget, 'no connection to create'),
      );
    }
    this.client = created;
    this.ownsClient = target.kind !== 'client';
    this.watcher = new RedisConnectionWatch(settings, this.logger, () => this.isClosed);
    const watcher = this.watcher;
    this.serverCheck = new RedisServerCheck(
      this.client,
      {
        ...settings,
        // Read when said: after a failover it names the server in use.
        get maskedTarget() {
          return watcher.target;
        },
        storeMarkKey: new RedisKeys(settings.alias, settings.prefix).storeMark,
      },
      this.logger,
    );
    this.watch(this.client, 'main');
    this.blockingWaits = new RedisBlockingWaits(this);
  }

  /** The server in use as logs and errors name it (the one Sentinel named last), password masked. */
  get maskedTarget(): string {
    return this.watcher.target;
  }

  /** What the server checks found of the store so far (see RedisServerCheck). */
  storeCondition(): StoreCondition {
    return this.serverCheck.condition;
  }

  /** Once closed, every call fails and every wait ends as aborted. */
  get closed(): boolean {
    return this.isClosed;
  }

  /**
   * Runs a Redis call, turning its failures into the typed error that says
   * what happened (see redisCallError; ours pass through). `lostReply`
   * replaces the BackendUnavailableError of a call that may have run with
   * its reply lost (a write whose outcome the caller must be told is
   * unknown). The first call on a connection checks the server first
   * (checkRedisServer), so a Redis that cannot keep tasks safe fails the
   * first call, loudly; after that the check costs nothing. A call given up
   * on during the check is never sent: it was reported failed, so it must
   * not run. While the client is not connected the call is also bounded by
   * connectTimeout (+1 s): ioredis's Cluster queues commands until it
   * reaches a node and would otherwise wait forever for an unreachable one.
   * A connected client needs no timer (commandTimeout bounds each command).
   */
  async run<T>(call: () => Promise<T>, lostReply?: LostReply): Promise<T> {
    // A closed client would queue the call for a reconnect that never comes,
    // and its command timer would keep the process alive meanwhile.
    if (this.isClosed) throw this.failure(new Error('the backend is closed'));
    let sent = false;
    let abandoned = false;
    const send = (): Promise<T> => {
      if (abandoned) {
        return Promise.reject(new Error('the call was given up on before it was sent'));
      }
      sent = true;
      return call();
    };
    try {
      const pending = this.serverCheck.passed ? send() : this.serverCheck.ensure().then(send);
      if (this.client.status === 'ready') return await pending;
      return await this.boundedWhileConnecting(pending);
    } catch (error) {
      abandoned = true;
      throw this.failure(error, sent ? lostReply : undefined);
    }
  }

  private async boundedWhileConnecting<T>(pending: Promise<T>): Promise<T> {
    const limitMs = this.settings.connectTimeout + 1000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // The call may still settle later; its outcome is no longer anyone's to handle.
        pending.catch((late: unknown) => this.logger.debug(`late failure: ${String(late)}`));
        reject(new Error(`not connected within ${limitMs} ms`));
      }, limitMs);
      timer.unref();
    });
    try {
      return await Promise.race([pending, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * What to throw for a failed Redis call: a typed error (see
   * redisCallError), or a bug in the calling code unchanged.
   */
  failure(error: unknown, lostReply?: LostReply): unknown {
    return redisCallError(
      error,
      {
        alias: this.settings.alias,
        maskedTarget: this.maskedTarget,
        mask: (text) => this.watcher.mask(text),
        lastConnectionError: this.watcher.lastError,
      },
      lostReply,
    );
  }

  /** Ends every connection; a client handed in by the user stays open (it is theirs). */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.blockingWaits.disconnectAll();
    if (!this.ownsClient) {
      this.watcher.unwatch(this.client);
      return;
    }
    // QUIT only over a live connection: on one that is (re)connecting it would
    // wait in the offline queue while the reconnect timer keeps the process alive.
    if (this.client.status !== 'ready') {
      this.client.disconnect();
      // Between two reconnect attempts there is no socket whose close would
      // fail the queued calls, so ioredis keeps them (and their command
      // timers, which hold the process) forever: fail them now.
      if (this.client.status !== 'end') {
        (this.client as unknown as { flushQueue?(error: Error): void }).flushQueue?.(
          new Error('Connection is closed.'),
        );
      }
      return;
    }
    try {
      await this.client.quit();
    } catch (error) {
      this.logger.debug(`QUIT failed (${this.watcher.mask(String(error))}); disconnecting instead`);
      this.client.disconnect();
    }
  }

  /**
   * A new blocking client, for one idle wait at a time; `onClose` is told
   * each time its connection closes (a reconnect may follow).
   */
  createBlocker(onClose: (blocker: RedisClient) => void): RedisClient {
    // A command timeout just above one BLPOP slice: long enough never to cut a
    // healthy wait, short enough that a connection that died silently (no RST)
    // cannot hang a wait forever.
    const blocker = blockingCopy(this.client, BLOCK_SLICE_MS + BLOCK_SLICE_GRACE_MS);
    blocker.on('close', () => onClose(blocker));
    this.watch(blocker, 'blocking');
    return blocker;
  }

  /**
   * A client for the feed of finished tasks: subscriber mode takes a
   * connection of its own. Its user subscribes and closes it; ioredis
   * subscribes again after a reconnect (what was published meanwhile is lost).
   */
  createSubscriber(): RedisClient {
    const subscriber = subscriberCopy(this.client);
    this.watch(subscriber, 'subscriber');
    return subscriber;
  }

  /**
   * Logs connection trouble of `client` (see RedisConnectionWatch) and, on
   * one server, fails its commands in flight when its connection drops (see
   * failInFlight). A reconnect of the main client may have reached another
   * server (a failover): it is checked again.
   */
  private watch(client: RedisClient, role: string): void {
    const main = client === this.client;
    this.watcher.watch(client, role, {
      main,
      ready: () => {
        if (main) this.serverCheck.reset();
      },
    });
    if (client instanceof Redis) this.watcher.onClose(client, () => failInFlight(client));
  }
}
