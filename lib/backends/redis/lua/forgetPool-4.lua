#!lua flags=allow-oom
--[[
  Forget a worker pool's heartbeat once it holds nothing: after a clean stop
  (which also lapses it at once, so if something is still held the next
  maintenance pass recovers it instead of waiting for the heartbeat to run out),
  or after a maintenance pass recovered everything a dead pool held. The
  cancel requests addressed to it go with it (no child of it is left to
  handle them), and so does its info (beatPool-2.lua). A pool that
  beat again meanwhile is alive and is kept: deadlines are Redis's time
  (beatPool-2.lua), and so is the time they are compared with (storeClock).
  It only deletes (and lapses a score in place), so it runs when Redis is
  over maxmemory too (allow-oom).

  KEYS[1] live pools (ZSET) score = heartbeat deadline (ms, Redis's clock)
  KEYS[2] task set (SET) of the pool
  KEYS[3] cancel requests (ZSET) of the pool, score = request time (ms)
  KEYS[4] pool info (HASH) field = pool id, value = its last beat and info

  ARGV[1] pool id (string)
  ARGV[2] 1 when the pool is stopping (lapse it now), 0 otherwise (flag)

  Returns 1 when the pool was forgotten, 0 when it is alive or still holds tasks (count)
  Errors none (allow-oom)
]]

local deadline = redis.call('ZSCORE', KEYS[1], ARGV[1])
if deadline == false then
  return 0
end
local now = storeClock()
if ARGV[2] == '1' then
  redis.call('ZADD', KEYS[1], now, ARGV[1])
elseif tonumber(deadline) > now then
  return 0
end
if redis.call('SCARD', KEYS[2]) > 0 then
  return 0
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[3])
redis.call('HDEL', KEYS[4], ARGV[1])
return 1
