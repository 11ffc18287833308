import { Logger } from '@nestjs/common';
import { Cluster, Redis, type RedisOptions } from 'ioredis';

import { BackendUnavailableError } from '../../core/errors/backend-unavailable.error';
import type { StoreCondition } from '../../core/store-condition';
import { redisUnavailable } from '../../core/threadmill.messages';
import type { RedisBackendSettings } from './redis-backend-config.parser';
import { BLOCK_SLICE_MS, RedisBlockingWaits } from './redis-blocking-waits';
import { redisCallError, type LostReply } from './redis-errors';
import { RedisKeys } from './redis-keys';
import type { RedisClient } from './redis-scripts';
import { RedisServerCheck } from './redis-server-check';

/** How much later than its timeout a BLPOP reply may come before the connection counts as dead. */
const BLOCK_SLICE_GRACE_MS = 5000;

// One quick reconnect per command: a Redis restart is ridden out, a dead Redis
// fails the command within about one connectTimeout instead of queueing it forever.
const MAX_RETRIES_PER_REQUEST = 1;
const DISCONNECT_TIMEOUT_MS = 100;
const reconnectDelay = (attempt: number): number => Math.min(attempt * 100, 2000);
const IN_FLIGHT_LOST =
  'the connection dropped before the reply: the command may or may not have been applied';

/**
 * The connections of one RedisBackend alias: one shared client for every
 * command, and the blocking clients of its idle waits (see
 * RedisBlockingWaits), made and closed here like the shared one.
 * Turns every Redis failure into the typed error that says what it was (see
 * redisCallError), with the password masked.
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
  /** Why the main connection last failed (masked), until it is ready again. */
  private lastConnectionError: string | null = null;
  private readonly serverCheck: RedisServerCheck;

  constructor(private readonly settings: RedisBackendSettings) {
    this.logger = new Logger(`RedisBackend:${settings.alias}`);
    const { target } = settings;
    if (target.kind === 'client') {
      this.client = target.client;
      this.ownsClient = false;
    } else {
      this.client = this.create();
      this.ownsClient = true;
      this.watch(this.client, 'main');
    }
    this.serverCheck = new RedisServerCheck(
      this.client,
      { ...settings, storeMarkKey: new RedisKeys(settings.alias, settings.prefix).storeMark },
      this.logger,
    );
    this.blockingWaits = new RedisBlockingWaits(this);
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
        maskedTarget: this.settings.maskedTarget,
        mask: (text) => this.mask(text),
        lastConnectionError: this.lastConnectionError,
      },
      lostReply,
    );
  }

  /** Ends every connection; a client handed in by the user stays open (it is theirs). */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.blockingWaits.disconnectAll();
    if (!this.ownsClient) return;
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
      this.logger.debug(`QUIT failed (${this.mask(String(error))}); disconnecting instead`);
      this.client.disconnect();
    }
  }

  private create(): RedisClient {
    const { target, connectTimeout, commandTimeout, redisOptions } = this.settings;
    const common: RedisOptions = {
      lazyConnect: true,
      connectTimeout,
      commandTimeout,
      maxRetriesPerRequest: MAX_RETRIES_PER_REQUEST,
      // ioredis arms this timer on disconnect and clears it only when the
      // socket closes, which a refused socket already did: with the 2 s
      // default, close() left the process alive for 2 s.
      disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    };
    if (target.kind === 'cluster') {
      return new Cluster(target.nodes, {
        lazyConnect: true,
        enableOfflineQueue: true,
        clusterRetryStrategy: reconnectDelay,
        redisOptions: { ...common, ...target.redisOptions, ...redisOptions },
      });
    }
    if (target.kind === 'url') {
      const client = new Redis(target.url, {
        ...common,
        enableOfflineQueue: true,
        retryStrategy: reconnectDelay,
        // See failInFlight: a command whose reply died with the connection is not sent again.
        autoResendUnfulfilledCommands: false,
        ...redisOptions,
      });
      client.on('close', () => this.failInFlight(client));
      return client;
    }
    throw new BackendUnavailableError(
      redisUnavailable(this.settings.alias, this.settings.maskedTarget, 'no connection to create'),
    );
  }

  /**
   * Fails the commands still waiting for a reply when the connection drops.
   * Redis may have run them (a script ran, its reply was lost), so sending
   * them again would run them twice: an enqueue would be refused as a
   * duplicate id although it was stored, and a second acquire would lease
   * other tasks while the first ones stay leased to a worker that never got
   * them. Failing them says "unknown outcome" honestly and at once
   * (BackendUnavailableError), and a worker then looks for such leases.
   */
  private failInFlight(client: Redis): void {
    const inFlight = client.commandQueue;
    if (inFlight.length === 0) return;
    const lost = new Error(IN_FLIGHT_LOST);
    for (let item = inFlight.shift(); item; item = inFlight.shift()) item.command.reject(lost);
  }

  /**
   * A new blocking client, for one idle wait at a time; `onClose` is told
   * each time its connection closes (a reconnect may follow).
   */
  createBlocker(onClose: (blocker: RedisClient) => void): RedisClient {
    // A copy of the main client's settings, with a command timeout just above one
    // BLPOP slice: long enough never to cut a healthy wait, short enough that a
    // connection that died silently (no RST) cannot hang a wait forever.
    const commandTimeout = BLOCK_SLICE_MS + BLOCK_SLICE_GRACE_MS;
    const blocker =
      this.client instanceof Cluster
        ? this.client.duplicate(undefined, {
            redisOptions: { ...this.client.options.redisOptions, commandTimeout },
          })
        : // Queued until connected even if a handed-in client refuses offline commands.
          this.client.duplicate({
            commandTimeout,
            lazyConnect: true,
            enableOfflineQueue: true,
            // A lease sent behind a BLPOP must not run twice either (see failInFlight).
            autoResendUnfulfilledCommands: false,
          });
    blocker.on('close', () => {
      onClose(blocker);
      if (blocker instanceof Redis) this.failInFlight(blocker);
    });
    this.watch(blocker, 'blocking');
    return blocker;
  }

  /**
   * A client for the feed of finished tasks: subscriber mode takes a
   * connection of its own. Its user subscribes and closes it; ioredis
   * subscribes again after a reconnect (what was published meanwhile is lost).
   */
  createSubscriber(): RedisClient {
    const subscriber =
      this.client instanceof Cluster
        ? this.client.duplicate()
        : this.client.duplicate({ lazyConnect: true, enableOfflineQueue: true });
    this.watch(subscriber, 'subscriber');
    return subscriber;
  }

  /** Logs connection trouble once per outage (not per retry), with secrets masked. */
  private watch(client: RedisClient, role: string): void {
    let reported = false;
    client.on('error', (error: unknown) => {
      const text = this.mask(error instanceof Error ? error.message : String(error));
      if (client === this.client) this.lastConnectionError = text.replace(/\.+$/, '');
      if (reported || this.isClosed) return;
      reported = true;
      this.logger.warn(
        `${role} connection to ${this.settings.maskedTarget} failed: ${text} (retrying)`,
      );
    });
    client.on('ready', () => {
      if (client === this.client) {
        this.lastConnectionError = null;
        // A reconnect may have reached another server (a failover): it is checked again.
        this.serverCheck.reset();
      }
      if (reported) this.logger.log(`${role} connection to ${this.settings.maskedTarget} is back`);
      reported = false;
    });
  }

  private mask(text: string): string {
    let masked = text;
    for (const secret of this.settings.secrets) masked = masked.split(secret).join('***');
    return masked;
  }
}
