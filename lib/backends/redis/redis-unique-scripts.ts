import type { ScriptCall } from './redis-script-sources';
import {
  NO_LEADING_ARGS,
  outboxMoveArgs,
  type EnqueueQueueKeys,
  type LeadingArgs,
  type OutboxFence,
  type UniqueEnqueueItem,
  type UniqueEnqueueOutcome,
  type UniqueEnqueueReply,
} from './redis-script-types';

/**
 * Typed calls of the unique-key scripts (enqueueUnique.lua,
 * forgetFreeKeys-1.lua), laid out as their headers say. Reached through
 * `RedisScripts.unique`, which registers them with the others.
 *
 * @internal
 */
export class RedisUniqueScripts {
  constructor(
    private readonly calls: Record<
      'enqueueUnique' | 'forgetFreeKeys' | 'moveOutboxedUnique',
      ScriptCall
    >,
  ) {}

  /**
   * Stores the tasks as their keys decide, all or none, or with `each` a
   * refusal refusing only its record; see UniqueEnqueueReply.
   */
  async enqueue(
    keys: UniqueEnqueueKeys,
    queues: readonly EnqueueQueueKeys[],
    items: readonly UniqueEnqueueItem[],
    args: UniqueEnqueueArgs,
  ): Promise<UniqueEnqueueReply> {
    const reply = (await this.calls.enqueueUnique(argvOf(keys, queues, items, args))) as (
      string | number | null
    )[];
    return readReply(reply, items);
  }

  /**
   * Stores tasks the outbox relay moves, as `enqueue` with `each` would,
   * leaving out those moved before (within the mark window); each moved
   * id's mark then holds the id its key decided on (moveOutboxedUnique.lua).
   * Rejects with the script's FENCED reply when a newer relay than
   * `fence.generation` has taken the lock.
   */
  async move(
    fence: OutboxFence,
    marks: { movedPrefix: string; windowMs: number },
    keys: UniqueEnqueueKeys,
    queues: readonly EnqueueQueueKeys[],
    items: readonly UniqueEnqueueItem[],
    args: Omit<UniqueEnqueueArgs, 'each'>,
  ): Promise<void> {
    const argv = argvOf(keys, queues, items, { ...args, each: true }, outboxMoveArgs(fence, marks));
    await this.calls.moveOutboxedUnique(argv);
  }

  /**
   * Forgets the keys of one HSCAN page of the index (from `cursor`) whose
   * task is final or gone; how many, and the cursor to go on from.
   */
  async forgetFreeKeys(
    uniqueKeysKey: string,
    args: { taskPrefix: string; cursor: string; count: number },
  ): Promise<{ forgotten: number; cursor: string }> {
    const [forgotten, cursor] = (await this.calls.forgetFreeKeys([
      uniqueKeysKey,
      args.taskPrefix,
      args.cursor,
      args.count,
    ])) as [number, string];
    return { forgotten, cursor };
  }
}

function readOutcomes(reply: readonly (string | number | null)[], count: number) {
  const outcomes: UniqueEnqueueOutcome[] = [];
  let i = 1;
  while (outcomes.length < count) {
    const kind = reply[i];
    if (kind === 0) {
      outcomes.push({ kind: 'stored' });
      i += 1;
    } else if (kind === 1) {
      const fields = reply.slice(i + 2, i + 8) as (string | null)[];
      outcomes.push({ kind: 'returned', id: reply[i + 1] as string, fields });
      i += 8;
    } else if (kind === 2) {
      outcomes.push({ kind: 'replaced', id: reply[i + 1] as string });
      i += 2;
    } else if (kind === 3) {
      outcomes.push({ kind: 'returnedWritten', index: (reply[i + 1] as number) - 1 });
      i += 2;
    } else if (kind === 4) {
      outcomes.push({ kind: 'clash', fields: reply.slice(i + 1, i + 7) as (string | null)[] });
      i += 7;
    } else {
      outcomes.push({
        kind: 'windowGone',
        key: reply[i + 1] as string,
        holderId: reply[i + 2] as string,
        windowEndMs: Number(reply[i + 3]),
      });
      i += 4;
    }
  }
  return outcomes;
}

/** Keys of a unique enqueue besides its queues'. */
interface UniqueEnqueueKeys {
  sequenceKey: string;
  uniqueKeysKey: string;
}

/** ARGV of a unique enqueue before its items. */
interface UniqueEnqueueArgs {
  taskPrefix: string;
  windowPrefix: string;
  resultTtlMs: number;
  priorityWeight: number;
  wakeBound: number;
  runningStatus: string;
  each: boolean;
  /** Where the tasks made are announced (RedisKeys.liveChannel). */
  liveChannel: string;
  /** The queues' names in the order of `queues`, separated by spaces. */
  queueNames: string;
}

/** enqueueUnique.lua's arguments, its key count first, laid out as its header says. */
function argvOf(
  keys: UniqueEnqueueKeys,
  queues: readonly EnqueueQueueKeys[],
  items: readonly UniqueEnqueueItem[],
  args: UniqueEnqueueArgs,
  before: LeadingArgs = NO_LEADING_ARGS,
): (string | number)[] {
  const argv: (string | number)[] = [0, ...before.keys, keys.sequenceKey, keys.uniqueKeysKey];
  for (const queue of queues) {
    argv.push(queue.queueKey, queue.deferredKey, queue.ingressPrefix, queue.wakeKey);
  }
  argv[0] = argv.length - 1;
  argv.push(
    ...before.argv,
    args.wakeBound,
    args.priorityWeight,
    args.taskPrefix,
    args.resultTtlMs,
    args.windowPrefix,
    args.runningStatus,
    args.each ? 1 : 0,
    args.liveChannel,
    args.queueNames,
  );
  for (const item of items) {
    argv.push(
      item.queueIndex + 1,
      item.priority,
      item.delayMs ?? '',
      item.id,
      item.data,
      item.unique?.key ?? '',
      item.unique?.mode ?? '',
      item.unique?.windowTtlMs ?? '',
    );
  }
  return argv;
}

function readReply(
  reply: readonly (string | number | null)[],
  items: readonly UniqueEnqueueItem[],
): UniqueEnqueueReply {
  if (reply[0] === -1) {
    const id = reply[1] as string;
    const index = items.findIndex((item) => item.id === id);
    return { kind: 'clash', clash: { index, id, fields: reply.slice(2) as (string | null)[] } };
  }
  if (reply[0] === -2) {
    return {
      kind: 'windowGone',
      key: reply[1] as string,
      holderId: reply[2] as string,
      windowEndMs: Number(reply[3]),
    };
  }
  return { kind: 'done', outcomes: readOutcomes(reply, items.length) };
}
