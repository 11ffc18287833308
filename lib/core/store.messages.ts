/**
 * The user-facing sentences of how a store keeps (or fails to keep) its
 * data: refusals that clear by themselves, persistence, data found gone,
 * written once (as threadmill.messages.ts).
 */

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
    `Threadmill backend "${alias}": Redis at ${target} refused ${what} for now ` +
    `(${reply.replace(/\.+$/, '')}), so nothing of it ran. This clears by itself once ${when}: ` +
    `retry the same call then.`
  );
};
