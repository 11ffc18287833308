import type { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';

import { storeDataLost } from '../../core/store.messages';
import type { RedisClient } from './redis-clients';

/**
 * The mark an alias's store keeps (RedisKeys.storeMark): written once, when
 * the store is first used, and never changed after, so it goes only with
 * the data around it. Each process reads it whenever it (re)connects; one
 * that finds it missing or replaced after having seen it knows the store
 * came back without its data (a Redis restarted without persistence, a
 * flush), which nothing else would tell it: the queues simply look empty.
 * It then says so once, as an error naming what happened, and keeps it for
 * the health checks (dataLost). A store that lost only its last writes (a
 * snapshot older than the crash) may keep its mark: that loss is the one
 * the persistence warning names.
 *
 * @internal
 */
export class RedisStoreMark {
  /** The mark this process saw last; null before the first read. */
  private seen: string | null = null;
  private lostText: string | null = null;

  constructor(
    private readonly key: string,
    private readonly settings: { alias: string; maskedTarget: string },
    private readonly logger: Logger,
  ) {}

  /** What this process found gone, in words; null while nothing was. */
  get lost(): string | null {
    return this.lostText;
  }

  /**
   * Reads the mark, writing one where there is none (SET NX GET: of two
   * processes racing, both keep the first), and compares it with the one
   * seen before. A refused read or write (a read-only user or replica, a
   * full Redis) leaves the comparison for the next connection: the mark must
   * never stand in the way of the calls it was read before.
   */
  async check(client: RedisClient): Promise<void> {
    let mark: string | null;
    try {
      mark = await client.get(this.key);
      if (mark === null) {
        const mine = `${Date.now()} ${randomUUID()}`;
        mark = (await client.set(this.key, mine, 'NX', 'GET')) ?? mine;
      }
    } catch (error) {
      if ((error as { name?: unknown } | null)?.name !== 'ReplyError') throw error;
      this.logger.debug(`the store mark could not be read or written: ${String(error)}`);
      return;
    }
    if (this.seen !== null && mark !== this.seen) {
      this.lostText = storeDataLost(
        this.settings.alias,
        this.settings.maskedTarget,
        since(this.seen),
      );
      this.logger.error(this.lostText);
    }
    this.seen = mark;
  }
}

/** When a mark was written, from its leading epoch ms; null for a mark of another shape. */
function since(mark: string): Date | null {
  const ms = Number(mark.split(' ', 1)[0]);
  return Number.isSafeInteger(ms) && ms > 0 ? new Date(ms) : null;
}
