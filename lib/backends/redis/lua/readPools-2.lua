#!lua flags=no-writes
--[[
  The worker pools of an alias, for an operator's list of them (pools):
  each pool's heartbeat deadline, its last beat and info as beatPool-2.lua
  stored them, and how many running tasks it holds, with Redis's time so
  the reader tells the live from the lapsed on the clock that wrote the
  deadlines. One call, so the list is of one moment. Pools are few; at most
  ARGV[2] are read, soonest deadline first. Reads only (no-writes), so it
  also answers on a Redis that is over maxmemory.

  KEYS[1] live pools (ZSET) score = heartbeat deadline (ms, Redis's clock)
  KEYS[2] pool info (HASH) field = pool id, value = its last beat (ms, Redis's clock), a space, its info

  Derived keys: pool task set = ARGV[1] .. pool id (SET), same hash tag as KEYS

  ARGV[1] pool task set key prefix (string)
  ARGV[2] most pools to read (count)

  Returns {Redis's time (ms), then per pool: id, deadline (ms), its beat and info or false, tasks it holds (count)}
  Errors WRONGTYPE when a key holds another type
]]

local now = storeClock()
local reply = { now }
local pools = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1, 'WITHSCORES')
for i = 1, #pools, 2 do
  local id = pools[i]
  reply[#reply + 1] = id
  reply[#reply + 1] = pools[i + 1]
  reply[#reply + 1] = redis.call('HGET', KEYS[2], id)
  reply[#reply + 1] = redis.call('SCARD', ARGV[1] .. id)
end
return reply
