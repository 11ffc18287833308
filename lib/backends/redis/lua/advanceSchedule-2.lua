#!lua
--[[
  Compare-and-set of a schedule's cursor: it moves from ARGV[2] to ARGV[3]
  only while it is still ARGV[2], the value the caller's pass read, and only
  forward. Of two pools racing over the same due ticks (whose enqueues of the
  same derived task ids the store refused but once), one moves it and the
  other finds it moved; a paused or removed schedule (no cursor) is left
  alone. The last tick is recorded with the move.

  KEYS[1] schedule cursors (ZSET) member = schedule id, score = next tick (ms, Redis's clock)
  KEYS[2] schedule last ticks (HASH) field = schedule id, value = last tick JSON

  ARGV[1] schedule id (string)
  ARGV[2] the cursor the pass read (ms)
  ARGV[3] the new cursor (ms), later than ARGV[2]
  ARGV[4] the last tick (JSON text), or empty to keep the stored one

  Returns 1 when the cursor moved, 0 when it had moved or gone (flag)
  Errors OOM before anything runs when Redis is over maxmemory
]]

local cursor = redis.call('ZSCORE', KEYS[1], ARGV[1])
if cursor == false or tonumber(cursor) ~= tonumber(ARGV[2]) then
  return 0
end
if tonumber(ARGV[3]) <= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
end
return 1
