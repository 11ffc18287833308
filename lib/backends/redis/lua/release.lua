#!lua
--[[
  Give leased tasks back unfinished (a worker shutting down with prefetched
  tasks it never started). Only a task still in its running set goes back,
  to its ready queue at its original score (kept in its hash at enqueue), so
  it keeps its place in line; its attempt history stays, and it leaves its
  worker pool's task set. A wake-up token per queue lets an idle consumer take
  it at once. The #!lua line makes Redis refuse the whole call before it runs
  when memory is over maxmemory, so no task leaves its running set without
  reaching its ready queue.

  Variadic KEYS: 4 per record, record r (from 1) uses
  KEYS[4r-3] running set (ZSET) of the task's queue
  KEYS[4r-2] ready queue (ZSET) of the task's queue
  KEYS[4r-1] task (HASH) its status is set back to ready; its score field is the ready score
  KEYS[4r] wake-up tokens (LIST) of the task's queue

  Derived keys: pool task set = ARGV[3] .. pool id (SET), same hash tag as KEYS

  ARGV[1] ready status word (string)
  ARGV[2] longest a wake-up list may grow (count)
  ARGV[3] pool task set key prefix (string)
  Then 2 per record, record r uses
  ARGV[2r+2] task id (string)
  ARGV[2r+3] ready score to use when the hash is gone (number)

  Returns how many tasks went back (count)
  Errors OOM before anything runs when Redis is over maxmemory; any error
  reply but WRONGTYPE of a task hash command (callSkippingWrongType)
]]

local released = 0
local woken = {}
for r = 1, #KEYS / 4 do
  local id = ARGV[2 * r + 2]
  if redis.call('ZREM', KEYS[4 * r - 3], id) == 1 then
    -- A key of another type in the hash's place reads as no hash: the task still goes back.
    local fields = callSkippingWrongType('HMGET', KEYS[4 * r - 1], 'score', 'pool')
    local score = ARGV[2 * r + 3]
    if fields and fields[1] then
      score = fields[1]
      redis.call('HSET', KEYS[4 * r - 1], 'status', ARGV[1])
      if fields[2] then
        redis.call('HDEL', KEYS[4 * r - 1], 'pool')
        redis.call('SREM', ARGV[3] .. fields[2], id)
      end
    end
    redis.call('ZADD', KEYS[4 * r - 2], score, id)
    released = released + 1
    local wakeKey = KEYS[4 * r]
    if not woken[wakeKey] then
      woken[wakeKey] = true
      if redis.call('LPUSH', wakeKey, '1') > tonumber(ARGV[2]) then
        redis.call('LTRIM', wakeKey, 0, tonumber(ARGV[2]) - 1)
      end
    end
  end
end
return released
