#!lua flags=allow-oom
--[[
  Trim the finished tasks of one queue and final status to their retention
  (core/retention.ts resolves the limit, the maintenance pass hands it
  over; this applies it): the results older than its age, by Redis's time (storeClock, the clock of the history
  scores), and the oldest beyond its count. Each goes from the history set,
  and its hash with it, unless the hash holds no outcome: a task enqueued
  again under the same id since is live, and is never touched. Its only
  writes delete, so it runs on a Redis over maxmemory too (allow-oom), where
  freeing results is what is wanted.

  KEYS[1] history (ZSET) of the queue and status, score = finished time (ms, Redis's clock)

  Derived keys: task hash = ARGV[1] .. id (HASH), same hash tag as KEYS

  ARGV[1] task key prefix (string)
  ARGV[2] longest a result is kept (ms): older ones go
  ARGV[3] most results kept (count), or empty for no limit
  ARGV[4] most results this call removes (count)

  Returns how many results went (count)
  Errors any error reply but WRONGTYPE of a task hash command (callSkippingWrongType)
]]

local budget = tonumber(ARGV[4])
local now = storeClock()
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]), 'LIMIT', 0, budget)
if ARGV[3] ~= '' and #ids < budget then
  -- The oldest beyond the count, after those already too old.
  local over = redis.call('ZCARD', KEYS[1]) - #ids - tonumber(ARGV[3])
  if over > 0 then
    local more = redis.call('ZRANGE', KEYS[1], #ids, #ids + math.min(over, budget - #ids) - 1)
    for i = 1, #more do
      ids[#ids + 1] = more[i]
    end
  end
end
for i = 1, #ids do
  local taskKey = ARGV[1] .. ids[i]
  if callSkippingWrongType('HEXISTS', taskKey, 'outcome') == 1 then
    redis.call('DEL', taskKey)
  end
  redis.call('ZREM', KEYS[1], ids[i])
end
return #ids
