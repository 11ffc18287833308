/** What the lifecycle's steps log, written once for every backend and process. */
import { shown } from '../core/shown';

export const workerCrashed = (id: string, taskName: string, pid: number, cause: string): string =>
  `Task ${shown(taskName)} (${id}) was held by worker process ${pid}, which died with ${cause}: it had ` +
  `started, or was about to (a task is journaled before it starts, so the pool cannot tell which). ` +
  `The attempt was ended at once (retried or failed per its retry policy) instead of waiting for its lease to expire.`;

export const leasesReaped = (alias: string, count: number): string =>
  `ended ${count} task(s) of ${shown(alias)} whose lease ran out`;

export const poolRecovered = (poolId: string, ended: number, forgotten: boolean): string =>
  `worker pool ${shown(poolId)} stopped beating: recovered ${ended} of its task(s)` +
  (forgotten ? ', and forgot the pool' : '');
