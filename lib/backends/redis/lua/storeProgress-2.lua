#!lua
--[[
  Store a running attempt's progress in its task hash, only while that very
  attempt still holds the task: the task is in its running set and its
  `workers` list (which acquire appends to on every lease) has as many
  entries as the attempt's number. A late write of an attempt that ended
  (finished: out of the running set), was removed (no hash) or lost its
  lease to a later attempt (a longer list) changes nothing, and never
  creates a hash. The value is the caller's text, never decoded here; reads
  return it with the task. The #!lua line makes Redis refuse the call before
  it runs when memory is over maxmemory. A stored progress is announced as
  progressed on the live channel while someone listens there
  (publishLive.function.lua, prepended): one EXISTS per store while nobody does.

  KEYS[1] running set (ZSET) of the task's queue, score = lease deadline (ms)
  KEYS[2] task hash (HASH) whose `progress` field is written

  ARGV[1] task id (string)
  ARGV[2] attempt number: how many worker ids the holding attempt's `workers` list has
  ARGV[3] progress as stored: [attempt, value] (JSON)
  ARGV[4] pub/sub channel of the alias's live events (string), also the name of its
  listener mark (STRING, same hash tag as KEYS; see publishLive)
  ARGV[5] the task's queue (string)
  ARGV[6] the task's name (string)

  Publishes once on ARGV[4] when it stored and someone listens:
  [progressed, [[id, queue, name, progress] ] ] (see publishLive)

  Returns 1 stored, 0 not held by that attempt (nothing changed)
  Errors OOM before anything runs when Redis is over maxmemory
]]

if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
if redis.call('TYPE', KEYS[2]).ok ~= 'hash' then
  return 0
end
local workers = redis.call('HGET', KEYS[2], 'workers')
if not workers then
  return 0
end
local decoded, list = pcall(cjson.decode, workers)
if not decoded or type(list) ~= 'table' or #list ~= tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[2], 'progress', ARGV[3])
if liveListened(ARGV[4]) then
  local entry = string.format('[%s,%s,%s,%s]',
    cjson.encode(ARGV[1]), cjson.encode(ARGV[5]), cjson.encode(ARGV[6]), ARGV[3])
  publishLive(ARGV[4], 'progressed', { entry })
end
return 1
