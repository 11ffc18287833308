#!lua
--[[
  Add or replace one schedule: its entry (definition, origin, paused) and its
  cursor in one step, so a pass never sees one without the other. A paused
  schedule has no cursor, so the due range never holds it. Its last tick is
  kept (the previous tick's task is what overlap looks at).

  KEYS[1] schedule cursors (ZSET) member = schedule id, score = next tick (ms, Redis's clock)
  KEYS[2] schedule entries (HASH) field = schedule id, value = entry JSON

  ARGV[1] schedule id (string)
  ARGV[2] entry (JSON text: definition, origin, paused)
  ARGV[3] next tick (ms since epoch), or empty while paused

  Returns 1
  Errors OOM before anything runs when Redis is over maxmemory
]]

redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
