#!lua
--[[
  Remove one schedule: its entry, cursor and last tick together, so no pass
  finds a cursor whose entry is gone, and a schedule added again later under
  the same id starts without the old one's last tick.

  KEYS[1] schedule cursors (ZSET) member = schedule id, score = next tick (ms, Redis's clock)
  KEYS[2] schedule entries (HASH) field = schedule id, value = entry JSON
  KEYS[3] schedule last ticks (HASH) field = schedule id, value = last tick JSON

  ARGV[1] schedule id (string)

  Returns 1 when the schedule was stored, 0 otherwise (count)
  Errors OOM before anything runs when Redis is over maxmemory
]]

redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return redis.call('HDEL', KEYS[2], ARGV[1])
