#!lua
--[[
  Keep a worker pool alive: its heartbeat deadline becomes Redis's time
  (storeClock) plus the pool's tolerance. Every pool's maintenance pass compares
  deadlines with Redis's time too, so a pool on a host whose clock is off
  (by minutes on a badly kept one) is neither taken for dead by the others
  nor kept alive after it stopped beating; acquire.lua leases nothing under
  a pool whose deadline has passed, and this beat lets it lease again. A
  pool forgotten after a recovery comes back with its next beat. The #!lua
  line makes Redis refuse the call before it runs when memory is over
  maxmemory (the pool logs it and beats again on its next pass).

  KEYS[1] live pools (ZSET) score = heartbeat deadline (ms, Redis's clock)

  ARGV[1] pool id (string)
  ARGV[2] how long the beat keeps the pool alive (ms)

  Returns the new heartbeat deadline (ms since epoch, Redis's clock)
  Errors OOM before anything runs when Redis is over maxmemory
]]

local deadline = storeClock() + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], deadline, ARGV[1])
return deadline
