import type { Cluster, Redis } from 'ioredis';

import type { StorePersistence } from '../../core/store-condition';
import { parseInfo } from './redis-info';

/** How one Redis keeps its data over a restart, as read when a connection is checked. */
export interface PersistenceFacts {
  readonly persistence: StorePersistence;
  /**
   * The RDB save schedule as `CONFIG GET save` gives it ("3600 1 300 100"),
   * empty for none; null when AOF is on (it does not matter then) or CONFIG
   * is refused (managed Redis services often forbid it).
   */
  readonly schedule: string | null;
}

/** From worst to best: a cluster is as safe as its least safe master. */
const ORDER: readonly StorePersistence[] = ['none', 'snapshots', 'log'];

/** The least safe of several servers' persistence. */
export function weakestPersistence(facts: readonly PersistenceFacts[]): PersistenceFacts | null {
  let weakest: PersistenceFacts | null = null;
  for (const fact of facts) {
    if (weakest === null || ORDER.indexOf(fact.persistence) < ORDER.indexOf(weakest.persistence)) {
      weakest = fact;
    }
  }
  return weakest;
}

/**
 * What INFO persistence and, when AOF is off, `CONFIG GET save` say: AOF on
 * is `log`; else a save schedule is `snapshots`, none is `none`. A server
 * that refuses CONFIG and has AOF off is taken for `snapshots` with an
 * unknown schedule: it may snapshot, and saying it keeps nothing could be
 * false.
 */
export function persistenceOf(info: string, save: string | null): PersistenceFacts {
  if (parseInfo(info).get('aof_enabled') === '1') return { persistence: 'log', schedule: null };
  if (save !== null && save.trim() === '') return { persistence: 'none', schedule: '' };
  return { persistence: 'snapshots', schedule: save };
}

/** Reads one server's persistence: INFO persistence, then CONFIG GET save only when AOF is off. */
export async function readPersistence(server: Redis | Cluster): Promise<PersistenceFacts> {
  const info = await server.info('persistence');
  const logged = persistenceOf(info, null);
  if (logged.persistence === 'log') return logged;
  let save: string | null = null;
  try {
    const reply: unknown = await server.config('GET', 'save');
    save = Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : null;
  } catch (error) {
    // Refused (an ACL without CONFIG, a renamed command): the schedule stays unknown.
    // Anything else, a connection lost meanwhile, fails the check as any other call would.
    if ((error as { name?: unknown } | null)?.name !== 'ReplyError') throw error;
  }
  return persistenceOf(info, save);
}
