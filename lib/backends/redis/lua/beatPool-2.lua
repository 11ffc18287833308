#!lua flags=allow-oom
--[[
  Keep a worker pool alive: its heartbeat deadline becomes Redis's time
  (storeClock) plus the pool's tolerance. Every pool's maintenance pass compares
  deadlines with Redis's time too, so a pool on a host whose clock is off
  (by minutes on a badly kept one) is neither taken for dead by the others
  nor kept alive after it stopped beating; acquire.lua leases nothing under
  a pool whose deadline has passed, and this beat lets it lease again. A
  pool forgotten after a recovery comes back with its next beat. The time
  of the beat and what the pool says of itself (host, pid, children, ...)
  are kept beside it for the list of pools (readPools-2.lua); a beat
  without info keeps the info stored before. It runs when Redis is over
  maxmemory (allow-oom): it replaces a score and a short field, and a pool
  whose beats a full Redis refused would lapse, and lease nothing more,
  so the drain that frees memory would stop.

  KEYS[1] live pools (ZSET) score = heartbeat deadline (ms, Redis's clock)
  KEYS[2] pool info (HASH) field = pool id, value = its last beat (ms, Redis's clock), a space, its info

  ARGV[1] pool id (string)
  ARGV[2] how long the beat keeps the pool alive (ms)
  ARGV[3] what the pool says of itself (PoolInfo JSON), or empty to keep what is stored

  Returns the new heartbeat deadline (ms since epoch, Redis's clock)
  Errors none (allow-oom: a full Redis still takes the beat)
]]

local now, nowText = storeClock()
local deadline = now + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], deadline, ARGV[1])
local info = ARGV[3]
if info == '' then
  local stored = redis.call('HGET', KEYS[2], ARGV[1])
  if stored then
    local space = string.find(stored, ' ', 1, true)
    info = space and string.sub(stored, space + 1) or ''
  end
end
redis.call('HSET', KEYS[2], ARGV[1], nowText .. ' ' .. info)
return deadline
