#!lua flags=allow-oom
--[[
  Promote: put deferred tasks whose due time has passed by Redis's clock
  (storeClock, the clock their due times were set on) into their ready
  queue, at most a batch per call so one pass stays short. Each goes in at
  the ready score kept in its hash at enqueue (priority first, then the
  original enqueue order, so waiting did not cost it its place), and wake-up
  tokens let idle consumers take them at once. An id whose hash is gone
  still moves, at its due-time score, so acquire fails it visibly instead of
  it sitting in the deferred set. It runs when Redis is over maxmemory
  (allow-oom): it only moves tasks and bounds its tokens, and a task due
  again after a failed attempt must still run on a full Redis that drains.

  KEYS[1] deferred set (ZSET) score = due time (ms, Redis's clock)
  KEYS[2] ready queue (ZSET) of the same queue
  KEYS[3] wake-up tokens (LIST) of the same queue

  Derived keys: task hash = ARGV[2] .. id (HASH), same hash tag as KEYS

  ARGV[1] most tasks to move (count)
  ARGV[2] task key prefix (string)
  ARGV[3] longest a wake-up list may grow (count)

  Returns how many tasks were moved (count)
  Errors none for memory (allow-oom); any error reply but WRONGTYPE of a task hash command (callSkippingWrongType)
]]

local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', storeClock(), 'WITHSCORES', 'LIMIT', 0, ARGV[1])
if #due == 0 then
  return 0
end

local ids = {}
for i = 1, #due, 2 do
  local id = due[i]
  local taskKey = ARGV[2] .. id
  -- A key of another type under our prefix must not stop the promotion: it has no score.
  local score = callSkippingWrongType('HGET', taskKey, 'score')
  if type(score) ~= 'string' then
    score = due[i + 1]
  end
  redis.call('ZADD', KEYS[2], score, id)
  ids[#ids + 1] = id
end
redis.call('ZREM', KEYS[1], unpack(ids))

local bound = tonumber(ARGV[3])
local tokens = {}
for t = 1, math.min(#ids, bound) do
  tokens[t] = '1'
end
if redis.call('LPUSH', KEYS[3], unpack(tokens)) > bound then
  redis.call('LTRIM', KEYS[3], 0, bound - 1)
end
return #ids
