import { bullet, paragraph } from './markdown-prose';

/** The heading of the page's section on the Redis scripts' design. */
export const SCRIPT_SHAPES_HEADING = '## Why the Redis scripts are shaped as they are';

/**
 * The page's "Why the Redis scripts are shaped as they are": the performance
 * reasons behind code in lib/backends/redis/lua/ that would otherwise look
 * like it could be simpler. Static text, the same for every run: it names the
 * rows that show each choice rather than quoting figures, so the figures read
 * are always this run's.
 */
export function whyTheScriptsAreShaped(): string[] {
  return [
    ...paragraph(
      'The headers of the Lua scripts in `lib/backends/redis/lua/` document their keys, arguments, replies and invariants; what follows is why some of their code takes the shape it does. ' +
        'Each choice names the rows of the table above that show its effect.',
    ),
    '',
    ...[
      '**Running sets start as skiplists** (`acquire.lua`): by default Redis keeps a ZSET of up to 128 short members as a listpack, where every `ZADD`, `ZMSCORE` and `ZREM` scans all members, and a running set holds the tasks in flight, usually fewer than 128: at 100 slots those scans are a visible part of each lease, acknowledge and reap. ' +
        'Redis never turns a skiplist back into a listpack, so a lease of at least `SEED_FROM` tasks into a missing running set adds a member too long for a listpack and removes it in the same call. ' +
        "A smaller lease leaves the set to Redis: a one-slot worker's set empties after each task, and checking and seeding it would take three calls where one `ZADD` does, on every one of its leases. " +
        'Shown by: Redis CPU per task at 100 slots, and the 1-slot drain.',
      "**No call that would change nothing** (`enqueue.lua`, `acquire.lua`): every `redis.call` costs a few microseconds of Redis time beyond its command's own work. " +
        "So the hour's ingress hash gets its expiry only when a second's field is new (its expiry is the same all hour), a wake-up token list that no consumer pops is trimmed back to its bound only once it has doubled, and `acquire.lua` asks for both listener marks in one `EXISTS`, only when it stores or leases. " +
        'Shown by: Redis commands per task, and the sequential enqueue.',
      '**Few tables on the pickup path** (`enqueue.lua`, `acquire.lua`): at a light rate each pickup runs both scripts on cold caches, where every Lua table they build counts as well as every call. ' +
        '`enqueue.lua` walks its arguments twice instead of copying them into per-group tables, undoes a clash by walking them again, and writes ingress and wake-up tokens once per run of groups on one queue; ' +
        '`acquire.lua` builds no options for storing finished tasks when an idle worker has none. ' +
        'Shown by: pickup latency at 200/s, and the sequential enqueue.',
    ].flatMap(bullet),
  ];
}
