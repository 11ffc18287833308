#!lua flags=allow-oom
--[[
  Mark one of the alias's channels (finished tasks, live events) as
  listened to, or renew the mark: the scripts that store tasks final, and
  those that enqueue, lease or store progress, publish on their channel only
  while its mark exists (see storeFinished.function.lua and
  publishLive.function.lua), so an alias nobody listens to pays one EXISTS
  per call and sends nothing. The mark is a STRING under the
  channel's own name (keys and channels are apart in Redis) that expires
  unless a listener renews it, so one that stopped without a word stops
  the publishing within a lease. It may run when Redis is over maxmemory
  (allow-oom): a process waiting for a result must still be told of a
  finish that is stored once memory frees, and the mark is a few bytes.

  KEYS[1] listener mark of the finished or live channel (STRING), value = 1

  ARGV[1] how long the mark holds unless renewed (ms, whole)

  Returns 1
  Errors none of its own (allow-oom: a full Redis still takes the mark)
]]

redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
return 1
