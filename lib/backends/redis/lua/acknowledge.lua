#!lua flags=allow-oom
--[[
  Store finished tasks, many in one call, each only if it is still leased:
  a late acknowledge of a task the reaper already failed changes nothing and
  is reported stale. The worker's fast path stores through acquire.lua
  instead, with the next lease in the same call; this script serves a caller
  that only stores, and the reaper and pool recovery, which pass a holder
  guard so a task leased again after they looked is left alone. The rules
  live in storeFinished (storeFinished.function.lua, prepended), shared by both.
  It runs when Redis is over maxmemory (allow-oom), so a full Redis still
  takes the outcomes of the tasks it drains: each then expires (resultTtl,
  retention), where a waiting task never does. Its writes go past
  maxmemory by the outcomes until they expire or are trimmed; a script
  without flags would instead run its deletes and have its writes refused.
  History scores are Redis's time (storeClock), so trimming by Redis's time
  keeps each result resultTtl whichever host stored it.

  Variadic KEYS: 2 per group of records sharing a queue, a final status and a task name,
  group g (from 1) uses
  KEYS[2g-1] running set (ZSET) of the group's queue
  KEYS[2g] history (ZSET) successful, failed or cancelled set of the queue, scored by the time it was stored

  Derived keys: task hash = ARGV[6] .. id (HASH), pool task set = ARGV[4] ..
  pool id (SET), same hash tag as KEYS

  ARGV[1] result TTL (ms)
  ARGV[2] latest lease deadline to accept (ms since epoch, Redis's clock), or empty to accept any
  ARGV[3] pool id that must hold the task, or empty for any holder (string)
  ARGV[4] pool task set key prefix (string)
  ARGV[5] pool the tasks belong to: a pool id, empty for none, or * to read each task's (string)
  ARGV[6] task key prefix (string)
  ARGV[7] pub/sub channel of the alias's finished tasks (string), also the name of its
  listener mark (STRING, same hash tag as KEYS; see storeFinished)
  Then per group, in KEYS order: its label (JSON [queue, status, task
  name]), its record count n, then n pairs of task id (string) and outcome
  (JSON, see RedisRecordCodec.encodeFinished)

  Publishes once on ARGV[7] when anything was stored and someone listens:
  the stored ids by group (see storeFinished), so every process learns of
  these finishes.

  Returns a list with one entry per record, in order: 1 stored, 0 stale (not
  held), 2 already stored (not held, and its stored outcome is this very one)
  Errors none for memory (allow-oom); any error reply but WRONGTYPE of a task hash command (callSkippingWrongType)
]]

return storeFinished(1, 8, {
  resultTtl = ARGV[1],
  latest = tonumber(ARGV[2]),
  requiredPool = ARGV[3],
  poolPrefix = ARGV[4],
  callerPool = ARGV[5],
  taskPrefix = ARGV[6],
  now = select(2, storeClock()),
  channel = ARGV[7],
})
