import type { BenchConfig } from './bench-config';
import { CLI_START_ROW_KEYS } from './cli-start-figures';
import { DASHBOARD_PAINT_ROW_KEY } from './dashboard-figures';
import { bullet, paragraph } from './markdown-prose';
import { PROGRESS_ROW_KEY } from './progress-figures';
import { countLabel, type ReportedRow } from './report';
import { ROUND_TRIP_LIMIT_ROW_KEY } from './round-trip-figures';
import { IDLE_SCHEDULE_PASS_KEY } from './schedule-figures';
import { BEE_QUEUE_REFERENCE } from './targets';
import { WAIT_ROW_KEY } from './wait-figures';

/**
 * The page's "How each figure is taken": one bullet per kind of figure, with
 * this run's sizes; a row's bullet only when the table has the row (a report
 * from before it has neither the row nor its sizes).
 */
export function howEachFigureIsTaken(c: BenchConfig, figures: readonly ReportedRow[]): string[] {
  const costSlots = Math.max(...c.drainSlots);
  const largest = countLabel(Math.max(...c.backlogs));
  const smallest = countLabel(Math.min(...c.backlogs));
  const slice = countLabel(c.backlogSlice);
  const reference = BEE_QUEUE_REFERENCE;
  return [
    ...paragraph(
      'Every library the same way: no-op tasks, each library with its defaults and its own connections, on the same private Redis, emptied before each scenario. ' +
        (c.reps > 1
          ? `A figure is the median of ${c.reps} repetitions, the libraries taking turns to go first (a backlog figure: of ${c.reps} slices of one fill; memory: one fill).`
          : 'A figure is taken once (`--quick`).'),
    ),
    '',
    ...[
      `**drain, in-process**: ${countLabel(c.drainTasks)} tasks enqueued first (untimed), then one consumer in the benchmark process with S slots, timed to the last acknowledgement. ` +
        "Threadmill: `bench/threadmill.consumer.ts`, the worker child's loop on the backend API (`acknowledgeAndAcquire` with `max` = free slots, storing what finished since in the same call; from 8 slots two such calls out at once, from 32 four, each for its share of the slots), without the pool's task runner, held-task journal and progress reports, which the pool figure includes. " +
        'BullMQ: a `Worker` with `concurrency` S and its defaults (completed jobs kept, as Threadmill keeps results). ' +
        'Bee-Queue: a worker queue with `process(S, …)`, timed to its last `succeeded` event.',
      "**drain, pool**: the sample app's CLI, `threadmill worker --processes P --threads T --exit-empty`, draining `sample.echo`; BullMQ, which has no pool, runs P processes with one `Worker` of `concurrency` T each (`bench/bullmq.pool-child.ts`). " +
        'Timed from outside, from the first task taken to nothing waiting or running (both counts in one round trip every 20 ms), so booting Nest is not counted. ' +
        'A fresh child runs cold code for its first second or two (JIT warm-up), so a run with many threads drains enough tasks (the count is in its row) for the warm-up to be a small part of it. ' +
        'The pool figures run before the in-process ones, while the benchmark process is fresh: its leftover work would take CPU from the pool child and Redis. ' +
        'A row with `--prefetch N` runs Threadmill with that flag (a child holds N tasks leased beyond its free slots) and BullMQ as in the row without it: its worker already fetches the next job in the call that completes one. ' +
        'Bee-Queue has no pool, and the SQLite backend is not run here (`–`).',
      `**enqueue**: ${countLabel(c.sequentialTasks)} tasks awaited one by one; ${countLabel(c.enqueueTasks)} with ${c.enqueueInFlight} in flight; ${countLabel(c.enqueueTasks)} in bulk calls of ${c.bulkBatch}. ` +
        "Each library through its public call, as an app enqueues: Threadmill through `TaskService.enqueue` and `enqueueMany` of a Nest application context booted in the benchmark process (`ThreadmillModule.forRoot` on the same store and one provider with the no-op `@Task`, no worker; `bench/task-service.producer.ts`), so each call resolves the task's options, checks and serializes its arguments, makes its id and goes through the enqueue coalescer; BullMQ through `Queue.add` and `addBulk`; Bee-Queue through `createJob().save()` and `saveAll`. " +
        `The backend-level row runs the same ${c.enqueueInFlight} in flight below TaskService (records built by the benchmark as TaskService builds them, straight to \`backend.tasks.enqueue\`): the gap between the two rows is what TaskService costs. ` +
        "The other figures store their tasks at backend level: the fills in bulk, untimed, and the pickup figure's enqueues one at a time.",
      `**pickup latency**: an idle ${c.latencySlots}-slot consumer waiting on Redis, a producer at ${c.latencyRate} tasks/s; from just before the enqueue call to the task starting (one process, one clock). ` +
        `${c.latencyCount} pickups a repetition; each percentile is the median over the repetitions.`,
      "**round trips per task**: counted in the client, by wrapping ioredis' `Redis.prototype.sendCommand` for the benchmarked connections: a command sent alone is one, a whole pipeline or MULTI is one. " +
        "The benchmark's own connection is not counted. Bee-Queue talks to Redis through node_redis, which the counter does not see: its round trips show as `–`.",
      `**Redis commands per task**: the \`INFO commandstats\` delta of the drain at ${costSlots} slots (Redis counts the commands a Lua script runs), over the tasks.`,
      `**worker CPU / Redis CPU per task**: \`process.cpuUsage()\` of the consumer's process, and \`used_cpu_user + used_cpu_sys\` of \`redis-server\`, over the tasks of the drain at ${costSlots} slots.`,
      `**Redis memory per waiting task**: \`used_memory\` after enqueuing ${countLabel(c.memoryTasks)} tasks with a ${c.payloadBytes}-character payload, minus before, over the tasks.`,
      `**backlog**: B + ${c.reps + 1} × ${slice} tasks enqueued; one slice of ${slice} drained at ${c.backlogSlots} slots right after the fill (for ${largest}, its own row "right after the fill"), then, once Redis has settled, ${c.reps} more slices while at least B stay waiting, whose median is the figure. ` +
        `"Throughput kept" is the ${largest} figure over the ${smallest} one.`,
      // A report from before the row has neither the row nor its sizes.
      ...(figures.some((row) => row.key === IDLE_SCHEDULE_PASS_KEY)
        ? [
            `**maintenance pass, schedules**: ${countLabel(c.idleSchedules)} schedules stored through the Redis backend's schedule store (untimed), each ticking every 1 to 24 hours with its next tick over an hour away, so none is due; then ${countLabel(c.schedulePasses)} times the schedule tick of a pool's maintenance pass (\`ScheduleTicker.pass\`, whose read of the due schedules, \`dueSchedules\`, finds none), after one that loads the script. ` +
              "The figure is Redis's own accounting: the `INFO commandstats` `usec` of the script calls (a script's includes the commands it runs) over the passes, so Redis's time, without the round trip. " +
              'Threadmill on Redis only: BullMQ and Bee-Queue are not measured (`–`), and SQLite has no Redis time (`n/a`).',
          ]
        : []),
      ...(figures.some((row) => row.key === PROGRESS_ROW_KEY)
        ? [
            `**task progress**: ${c.progressTasks} tasks enqueued (untimed), then run at once by one consumer with as many slots, each waking every millisecond for ${c.progressMs / 1000} s; timed twice from an empty store, once silent and once calling \`TaskContext.progress\` on every wake-up (the process's batcher stores the waiting values of all the tasks in one call per \`PROGRESS_INTERVAL_MS\`, and each task's last value rides with its acknowledge: \`bench/progress-figures.ts\`). ` +
              `The figure is the reporting run's worker CPU (\`process.cpuUsage()\`) over the silent run's, the median of ${c.progressReps} repetitions (which run first alternates), after one untimed pair of ${c.progressWarmUpMs} ms that loads the progress script and compiles both paths. A silent run costs only some 50 ms of CPU, which varies by a third between identical runs: hence more repetitions than the other figures. Threadmill only: BullMQ and Bee-Queue are not measured (\`–\`).`,
          ]
        : []),
      ...(figures.some((row) => row.key === DASHBOARD_PAINT_ROW_KEY)
        ? [
            `**dashboard overview**: ${countLabel(c.dashboardWaiting)} tasks enqueued in bulk on one queue (untimed), a Nest app on Express serving them with \`ThreadmillDashboardModule\`, and Debian's Chromium (headless, through playwright-core) opening the overview ${c.dashboardLoads} times, each in a fresh context (an empty cache, as a first visit). Each time runs from the navigation to the queue's counts shown in the page; the figure is their median (\`bench/dashboard-paint.ts\`). Threadmill on Redis only.`,
          ]
        : []),
      ...(figures.some((row) => row.key === CLI_START_ROW_KEYS.result)
        ? [
            `**CLI start**: the sample's CLI (\`sample-dist/sample/src/worker.js\`, built once with \`npm run -s build:sample\`) on the benchmark's Redis, one task stored on an alias of its own. ${c.cliStarts} times each, one after the other: \`node -e ""\` (Node alone), Node requiring what the entry imports and exiting (the sample app, Nest, nest-commander, Threadmill), \`result <id>\` of the stored task and \`queues list\`, each timed from spawn to exit; the figures are the medians (\`bench/cli-start.ts\`). ` +
              "Neither command runs a task, so each boots the app's `ThreadmillModule` alone, not its providers. Threadmill on Redis only.",
          ]
        : []),
      ...(figures.some((row) => row.key === WAIT_ROW_KEY)
        ? [
            `**wait for a result**: ${countLabel(c.waits)} times, a task enqueued and leased by one Redis backend instance while another instance (its own connections, as another process would have) waits for its result (\`waitForResult\`, what \`enqueue --wait\` calls), then the task acknowledged. ` +
              'Each latency runs from just before the acknowledge is sent to the wait resolving: the acknowledge, the announcement on the finished channel, its delivery, and the read of the final result (`bench/wait-latency.ts`). ' +
              'The figure is the median of each repetition, then the median of the repetitions. Threadmill on Redis only: BullMQ and Bee-Queue are not measured (`–`).',
          ]
        : []),
      '**Redis settled before each drain**: Redis grows a hash table by moving its entries to one twice the size a little at a time (one bucket per command that touches the table, and 1 ms per `hz` tick), and until the move is done every lookup pays for it. ' +
        'A fill that crosses a power of two of keys (a million tasks cross 2^20) leaves such a move behind, which at the default `hz` of 10 outlasts the drain. ' +
        'A queue that has held its backlog for a while has no move going, so after every fill the benchmark waits until `DEBUG HTSTATS` shows no table being resized (the private server runs with `enable-debug-command local`, and at `hz` 500 while it waits), for every library alike. ' +
        "A key's own table, such as a sorted set's, moves only as commands touch it, so a large backlog still pays for that part.",
      '**Bee-Queue column**: Bee-Queue 2.0 with its defaults (succeeded jobs kept, key prefix `bq`), a no-op processor and its own connections. ' +
        "Its producer has `isWorker`, `getEvents` and `storeJobs` off, as Bee-Queue's README advises for a queue that only adds jobs; its workers keep `sendEvents` on and turn `getEvents` off, so a worker does not receive and parse its own event for every job.",
      '**Threadmill (SQLite) columns**: the same consumer, records, TaskService context and scenarios as the Redis column, on the SQLite backend (`bench/sqlite.runner.ts`), a fresh database file in a temporary folder per scenario. ' +
        'Its worker CPU includes the database\'s work, since there is no server to share it; better-sqlite3 is synchronous, so the enqueues "in flight" that one tick makes commit together, one transaction per batch (as on Redis, where they go as one script call); its pickup is an enqueue in the consumer\'s own process, which wakes the consumer at once (from another process a consumer notices work within its poll interval, 2–100 ms).',
      '**targets**: judged on Threadmill (Redis) against this run’s BullMQ and Bee-Queue, except the in-flight share of the bulk rate, which judges the SQLite column. ' +
        `A run without Bee-Queue (\`--only threadmill\`) judges the targets that name it against reference figures of Bee-Queue 2.0 from another machine (${countLabel(reference.bulkEnqueuePerSecond)} tasks/s bulk and ${countLabel(reference.concurrentEnqueuePerSecond)} in-flight enqueue, ${reference.pickupP99Ms} ms pickup p99), marked "reference figure"; pickup p50 and p95, and the 1-slot drain, which must be ahead of both peers, are then not judged. ` +
        `The memory target is a plain task (${c.payloadBytes} B payload, no unique key, no trace context) in no more than BullMQ's of the same run; its distance from Bee-Queue’s (this run’s, else the reference ${reference.memoryPerTaskBytes} B) is shown, not judged. ` +
        'The enqueue targets judge Threadmill through TaskService; the backend-level row has none. A missed target is explained under the table from the same run’s figures.',
      ...(figures.some((row) => row.key === ROUND_TRIP_LIMIT_ROW_KEY)
        ? [
            '**1 slot, share of its round-trip limit**: at one slot every library makes one round trip per task, so the host’s round trip bounds the drain: before each 1-slot drain the benchmark times 1000 bare round trips (PING on its own connection, median), and the limit is one task per (that round trip + the Redis time of the drain’s scripts per task, from `INFO commandstats`). The figure is the drain’s rate over that limit, the median of the repetitions (`bench/round-trip-figures.ts`). It is reported, not judged: the 1-slot drain’s own row is judged against both peers, and this share says how much of each task is left to the client.',
          ]
        : []),
    ].flatMap(bullet),
    '',
    'A CPU profile of one consumer (the fill left out) is one command away:',
    '`npx tsc -p bench/tsconfig.json && node node_modules/.cache/threadmill-bench/bench/profile.js threadmill 20000 100`',
    '(`bullmq` instead of `threadmill`; `bulk` instead of the slot count profiles bulk enqueue).',
  ];
}
