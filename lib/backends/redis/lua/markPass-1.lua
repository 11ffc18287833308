#!lua flags=allow-oom
--[[
  Record that a maintenance pass completed: the time of the pass, read by
  health checks (a stale one means no pool maintains the alias). One STRING
  replaced in place, so it runs when Redis is over maxmemory (allow-oom):
  the passes go on while a full Redis drains, and a refused heartbeat would
  only report them as stopped and log an error every pass.

  KEYS[1] maintenance heartbeat (STRING) value = time of the pass (ms since epoch)

  ARGV[1] time of the pass (ms since epoch, whole)
  ARGV[2] how long the heartbeat is kept without another pass (ms, whole)

  Returns 1
  Errors none of its own (allow-oom: a full Redis still takes the heartbeat)
]]

redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
