/**
 * What is said of how a store keeps (or fails to keep) its data: refusals
 * that clear by themselves, persistence, data found gone, and a store's own
 * files failing it (a full disk, a damaged or foreign file, an empty one).
 * Each names the store and what to do.
 */
import { shown } from './shown';

export const sqliteFull = (alias: string, filename: string, reason: string): string =>
  `Threadmill backend ${shown(alias)}: the disk holding the SQLite database ${filename} is full ` +
  `(${reason}), so the write was refused and nothing of it was stored. Retry once space is ` +
  `freed: free disk space, or keep less (a shorter resultTtl, fewer waiting tasks).`;

export const sqliteCorrupt = (alias: string, filename: string, reason: string): string =>
  `Threadmill backend ${shown(alias)}: the SQLite database ${filename} is damaged (${reason}): ` +
  `some of its pages are not what SQLite wrote (a disk or file system fault, or another program ` +
  `wrote into it), so nothing stored in it can be trusted and no retry can help. Stop every ` +
  `process that uses it, then restore it from a backup, or move it aside with its -wal and -shm ` +
  `files to start with an empty one.`;

export const sqliteNotADatabase = (alias: string, filename: string, reason: string): string =>
  `Threadmill backend ${shown(alias)}: ${filename} is not a SQLite database (${reason}), so it is not ` +
  `used. Check that the backend's url names the right file; if it does, the file is damaged: ` +
  `restore it from a backup, or move it aside to start with an empty one.`;

export const sqliteEmptyFileInitialised = (alias: string, filename: string): string =>
  `Threadmill backend ${shown(alias)}: the SQLite database ${filename} was an empty file (0 bytes), so ` +
  `a new, empty database was made in it. If it held tasks, they were lost before this start (the ` +
  `file was truncated or replaced): restore it from a backup.`;

export const childStoreCorrupt = (): string =>
  `The store is damaged, so this worker stops at once: it takes nothing more, gives back what ` +
  `it holds where the store still takes it, and drops the outcomes it could not store (those ` +
  `tasks stay RUNNING in the store). The error follows as it exits.`;

export const poolStoreCorrupt = (): string =>
  `The store is damaged, so the worker pool stops at once (its children are stopped urgently). ` +
  `The error follows as it exits.`;

export const poolStoppedStoreCorrupt = (alias: string, pid: number): string =>
  `The store of backend ${shown(alias)} is damaged: worker child ${pid} found it so (its own error, ` +
  `logged above, names the file and the fault), and the worker pool stopped, since no retry ` +
  `can help. Restore the store from a backup, or move it aside, before starting the pool again.`;

/** What passes, by the first word of Redis's refusal, for refusedForNow's message. */
const CLEARS_WHEN: Record<string, string> = {
  LOADING: 'it has loaded its data after a restart',
  BUSY: 'the long script it runs ends (SCRIPT KILL ends one that wrote nothing)',
  MISCONF:
    'it can write its persistence files again (free disk space, or fix its dir) and its next save succeeds',
  READONLY:
    'a failover is over and the connection reaches the new master (if it lasts, the URL names a replica: point it at the master)',
  MASTERDOWN: 'its master is back or a failover is over',
  CLUSTERDOWN: 'the cluster covers every slot again',
  TRYAGAIN: 'the resharding of the slot is over',
  NOREPLICAS: 'enough replicas answer again (min-replicas-to-write)',
};

export const redisRefusingForNow = (
  alias: string,
  target: string,
  what: string,
  reply: string,
): string => {
  const word = reply.split(' ', 1)[0];
  const when = CLEARS_WHEN[word] ?? 'the condition passes';
  return (
    `Threadmill backend ${shown(alias)}: Redis at ${target} refused ${what} for now ` +
    `(${reply.replace(/\.+$/, '')}), so nothing of it ran. This clears by itself once ${when}: ` +
    `retry the same call then.`
  );
};

export const storeKeepsNothing = (alias: string): string =>
  `Backend ${shown(alias)}: its store keeps nothing on disk, so a restart of it loses every task, ` +
  `waiting, running or finished.`;

export const redisKeepsNothing = (alias: string, target: string): string =>
  `Threadmill backend ${shown(alias)}: Redis at ${target} keeps nothing on disk (no AOF, no RDB ` +
  `snapshots). A restart or crash of it loses every task it holds, waiting, running or finished, ` +
  `including the ones whose enqueue it acknowledged, and nobody is told. Turn on AOF ` +
  `(appendonly yes), or set requirePersistence: true to refuse such a Redis.`;

/** "after 3600 s if 1 key changed, after 300 s if 100, ..." from a `save` setting; null when it has no pair. */
function snapshotRules(schedule: string): { rules: string; longestS: number } | null {
  const numbers = schedule.trim().split(/\s+/).map(Number);
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < numbers.length; i += 2) pairs.push([numbers[i], numbers[i + 1]]);
  if (pairs.length === 0 || pairs.some(([s, c]) => !Number.isFinite(s) || !Number.isFinite(c))) {
    return null;
  }
  const rules = pairs
    .map(([seconds, changes], i) =>
      i === 0
        ? `after ${seconds} s if ${changes} key(s) changed`
        : `after ${seconds} s if ${changes}`,
    )
    .join(', ');
  return { rules, longestS: Math.max(...pairs.map(([seconds]) => seconds)) };
}

export const redisSnapshotsOnly = (
  alias: string,
  target: string,
  schedule: string | null,
): string => {
  const read = schedule === null ? null : snapshotRules(schedule);
  const window =
    read === null
      ? ' (its snapshot schedule could not be read: CONFIG GET is not allowed here)'
      : `: it snapshots ${read.rules}, so up to ${read.longestS} s of work`;
  return (
    `Threadmill backend ${shown(alias)}: Redis at ${target} keeps its data in RDB snapshots only ` +
    `(AOF is off), so a crash or restart loses every task enqueued, started or finished since ` +
    `its last snapshot${window}. Turn on AOF (appendonly yes, appendfsync everysec) to lose at ` +
    `most about a second.`
  );
};

export const redisPersistenceRequired = (alias: string, target: string): string =>
  `Threadmill backend ${shown(alias)} will not use Redis at ${target}: it keeps nothing on disk (no ` +
  `AOF, no RDB snapshots), so a restart loses every task, and requirePersistence is set. Turn ` +
  `on AOF (appendonly yes) or RDB snapshots (save), or drop requirePersistence.`;

export const storeDataLost = (alias: string, target: string, since: Date | null): string =>
  `Threadmill backend ${shown(alias)}: the data in Redis at ${target} is gone. The mark this store ` +
  `has held${since === null ? '' : ` since ${since.toISOString()}`} was missing or replaced when ` +
  `this process reached it again: Redis restarted without persistence, or its data was flushed ` +
  `or deleted. Every task it held (waiting, running or finished) is lost, including enqueues it ` +
  `had acknowledged. Enqueue again what must still run, and turn on persistence (appendonly yes) ` +
  `so a restart keeps the queues.`;
