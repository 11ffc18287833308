#!lua flags=no-writes
--[[
  The schedules due by Redis's clock (storeClock): one range of the cursors
  ZSET, earliest first and at most ARGV[1], so a maintenance pass with
  nothing due costs one O(log n) read however many schedules exist. Each
  comes with its entry and last tick. Redis's time comes with them: every
  pool decides which ticks are due on that one clock, so pools whose clocks
  differ agree. It writes nothing (no-writes).

  KEYS[1] schedule cursors (ZSET) member = schedule id, score = next tick (ms, Redis's clock)
  KEYS[2] schedule entries (HASH) field = schedule id, value = entry JSON
  KEYS[3] schedule last ticks (HASH) field = schedule id, value = last tick JSON

  ARGV[1] most schedules returned (count)

  Returns {Redis's time (ms), then per due schedule: id, next tick (ms), entry or false, last tick or false}
  Errors WRONGTYPE when a key holds another type
]]

local now, nowText = storeClock()
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', nowText, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[1]))
local reply = { now }
for i = 1, #due, 2 do
  local id = due[i]
  reply[#reply + 1] = id
  reply[#reply + 1] = due[i + 1]
  reply[#reply + 1] = redis.call('HGET', KEYS[2], id)
  reply[#reply + 1] = redis.call('HGET', KEYS[3], id)
end
return reply
