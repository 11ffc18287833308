#!lua
--[[
  Cancel one task, in one step: a waiting (ready or deferred) task leaves its
  queue and is stored CANCELLED at once, so no worker can lease it
  afterwards; a running one gets a cancel request in the set of the pool
  that holds it (the hash's `pool`, '' for a lease without a pool), which
  that pool's children poll, and the hash's `cancel` field, which every later
  read and lease of the task returns; a finished one is left alone. It
  mirrors decideCancel (lib/lifecycle/cancel-decision.ts), the rule every
  backend applies, for the one fact only this script can read atomically:
  whether a lease holds the task (the cancel contract pins the two). The
  CANCELLED outcome and the request's lease are the caller's, from the task as it
  read it, so either is stored only while its `workers` field is still what
  the caller saw: a task leased (and perhaps retried) in between is
  reported changed, and the caller reads it again. The #!lua line makes Redis refuse the call
  before it runs when memory is over maxmemory. Scores are Redis's time
  (storeClock), like every other history score and request time.

  KEYS[1] ready queue (ZSET) of the task's queue
  KEYS[2] deferred set (ZSET) of the task's queue
  KEYS[3] running set (ZSET) of the task's queue
  KEYS[4] history (ZSET) cancelled set of the queue, scored by the time it was stored
  KEYS[5] task hash (HASH); `cancel` set (ms) for a running task

  Derived keys: cancel requests of a pool = ARGV[5] .. pool id (ZSET of
  `<task id> <lease>`, score = request time, ms); listener mark of the finished channel = ARGV[6]
  (STRING, see storeFinished.function.lua); same hash tag as KEYS

  ARGV[1] task id (string)
  ARGV[2] the task's `workers` field as the caller read it, empty when absent (string)
  ARGV[3] the CANCELLED outcome (JSON, see RedisRecordCodec.encodeFinished)
  ARGV[4] result TTL (ms)
  ARGV[5] cancel request key prefix (string)
  ARGV[6] pub/sub channel of the alias's finished tasks (string)
  ARGV[7] the message announcing this task CANCELLED (JSON, as storeFinished publishes)
  ARGV[8] the lease a running task is under as the caller read it: the last of its worker ids

  Publishes ARGV[7] on ARGV[6] once, only when it stored the task CANCELLED
  (a running task is announced by whoever stores it final) and the channel's
  listener mark exists.

  Returns {code, pool}: code 1 cancelled (stored CANCELLED), 2 requested
  (running: a request for its pool, named as pool), 3 already final
  (nothing changed), 0 nothing stored under the id, -1 changed since the
  caller read it (nothing changed); pool '' but for 2
  Errors OOM before anything runs when Redis is over maxmemory
]]

local id = ARGV[1]
if redis.call('EXISTS', KEYS[5]) == 0 then
  return { 0, '' }
end
if redis.call('HEXISTS', KEYS[5], 'outcome') == 1 then
  return { 3, '' }
end
local now, nowText = storeClock()
local workers = redis.call('HGET', KEYS[5], 'workers')
if (workers or '') ~= ARGV[2] then
  return { -1, '' }
end
if redis.call('ZSCORE', KEYS[3], id) ~= false then
  local pool = redis.call('HGET', KEYS[5], 'pool')
  if type(pool) ~= 'string' then
    pool = ''
  end
  -- The first request for a lease keeps its time: its age bounds how long it waits to be handled.
  redis.call('ZADD', ARGV[5] .. pool, 'NX', nowText, id .. ' ' .. ARGV[8])
  -- On the task too, so every later read and lease of it knows (the lease it is under may end
  -- before its holder hears of the request).
  redis.call('HSETNX', KEYS[5], 'cancel', nowText)
  return { 2, pool }
end
local removed = redis.call('ZREM', KEYS[1], id) + redis.call('ZREM', KEYS[2], id)
if removed == 0 then
  return { 0, '' }
end
redis.call('HSET', KEYS[5], 'outcome', ARGV[3])
redis.call('PEXPIRE', KEYS[5], ARGV[4])
redis.call('ZADD', KEYS[4], nowText, id)
if redis.call('EXISTS', ARGV[6]) == 1 then
  redis.call('PUBLISH', ARGV[6], ARGV[7])
end
return { 1, '' }
