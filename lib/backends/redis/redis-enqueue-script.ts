import type { ScriptCall } from './redis-script-sources';
import {
  NO_LEADING_ARGS,
  outboxMoveArgs,
  type EnqueueClash,
  type EnqueueGroup,
  type EnqueueQueueKeys,
  type LeadingArgs,
  type OutboxFence,
} from './redis-script-types';

/**
 * The typed call of enqueue.lua (tasks without unique keys), laid out as
 * its header says. Reached through `RedisScripts.enqueue`, which registers
 * it with the others.
 *
 * @internal
 */
export class RedisEnqueueScript {
  constructor(private readonly calls: Record<'enqueue' | 'moveOutboxed', ScriptCall>) {}

  /**
   * Stores the tasks, and lists the ones refused because a task is stored
   * under their id: all or none, the first of them (nothing was stored);
   * `each`, every one of them (the others were stored).
   */
  async store(
    sequenceKey: string,
    queues: readonly EnqueueQueueKeys[],
    groups: readonly EnqueueGroup[],
    args: EnqueueArgs,
  ): Promise<EnqueueClash[]> {
    const argv = enqueueArgv(sequenceKey, queues, groups, args);
    const reply = (await this.calls.enqueue(argv)) as (string | number | null)[];
    if (reply.length === 1) return [];
    const ids = groups.flatMap((group) => group.ids);
    if ((reply[0] as number) < 0) {
      const id = reply[1] as string;
      return [{ index: ids.indexOf(id), id, fields: reply.slice(2) as (string | null)[] }];
    }
    const clashes: EnqueueClash[] = [];
    for (let i = 1; i < reply.length; i += 7) {
      const index = (reply[i] as number) - 1;
      clashes.push({
        index,
        id: ids[index],
        fields: reply.slice(i + 1, i + 7) as (string | null)[],
      });
    }
    return clashes;
  }

  /**
   * Stores the tasks the outbox relay moves (moveOutboxed.lua), each
   * refused when moved before within `marks.windowMs` or when its id is
   * stored: either way it is in Redis. Resolves once the call was made;
   * rejects with the script's FENCED reply when a newer relay than
   * `fence.generation` has taken the lock.
   */
  async move(
    fence: OutboxFence,
    marks: { movedPrefix: string; windowMs: number },
    sequenceKey: string,
    queues: readonly EnqueueQueueKeys[],
    groups: readonly EnqueueGroup[],
    args: Omit<EnqueueArgs, 'each'>,
  ): Promise<void> {
    const argv = enqueueArgv(
      sequenceKey,
      queues,
      groups,
      { ...args, each: true },
      outboxMoveArgs(fence, marks),
    );
    await this.calls.moveOutboxed(argv);
  }
}

/** The fixed arguments of enqueue.lua. */
interface EnqueueArgs {
  taskPrefix: string;
  resultTtlMs: number;
  priorityWeight: number;
  wakeBound: number;
  each: boolean;
  /** Where the stored tasks are announced (RedisKeys.liveChannel). */
  liveChannel: string;
  /** The queues' names in the order of `queues`, separated by spaces. */
  queueNames: string;
}

/** enqueue.lua's call, laid out as its header says, after the KEYS and ARGV of a script `before` it. */
function enqueueArgv(
  sequenceKey: string,
  queues: readonly EnqueueQueueKeys[],
  groups: readonly EnqueueGroup[],
  args: EnqueueArgs,
  before: LeadingArgs = NO_LEADING_ARGS,
): (string | number)[] {
  const argv: (string | number)[] = [0, ...before.keys, sequenceKey];
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
    args.each ? 1 : 0,
    args.liveChannel,
    args.queueNames,
  );
  for (const group of groups) {
    argv.push(group.queueIndex + 1, group.priority, group.delayMs ?? '', group.ids.length);
    for (let i = 0; i < group.ids.length; i++) argv.push(group.ids[i], group.data[i]);
  }
  return argv;
}
