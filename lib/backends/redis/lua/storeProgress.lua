#!lua
--[[
  Store the progress of running attempts, many in one call (a process
  writes the values waiting for all its running tasks of an alias at once),
  each only while that very attempt still holds its task: the task is in
  its running set and its `workers` list (which acquire appends to on every
  lease) has as many entries as the attempt's number. A late write of an
  attempt that ended (finished: out of the running set), was removed (no
  hash) or lost its lease to a later attempt (a longer list) changes
  nothing, and never creates a hash; the other entries are stored all the
  same. A value is the caller's text, never decoded here; reads return it
  with the task. The #!lua line makes Redis refuse the call before it runs
  when memory is over maxmemory. Stored progress is announced as progressed
  on the live channel while someone listens there (publishLive.function.lua,
  prepended): one EXISTS per call, and only when it stored anything.

  Variadic KEYS: 2 per entry, entry e (from 1) uses
  KEYS[2e-1] running set (ZSET) of the task's queue, score = lease deadline (ms)
  KEYS[2e] task hash (HASH) whose `progress` field is written

  ARGV[1] pub/sub channel of the alias's live events (string), also the name of its
  listener mark (STRING, same hash tag as KEYS; see publishLive)
  Then 5 per entry, entry e uses
  ARGV[5e-3] task id (string)
  ARGV[5e-2] attempt number: how many worker ids the holding attempt's `workers` list has
  ARGV[5e-1] progress as stored: [attempt, value] (JSON)
  ARGV[5e] the task's queue (string)
  ARGV[5e+1] the task's name (string)

  Publishes once on ARGV[1] when it stored any and someone listens:
  [progressed, [[id, queue, name, progress], ...] ] (see publishLive)

  Returns a list with one reply per entry, in order: 1 stored, 0 not held
  by that attempt (nothing changed)
  Errors OOM before anything runs when Redis is over maxmemory
]]

-- Whether attempt number `attempt` holds task `id` (see above).
local function holds(runningKey, taskKey, id, attempt)
  if not redis.call('ZSCORE', runningKey, id) then
    return false
  end
  if redis.call('TYPE', taskKey).ok ~= 'hash' then
    return false
  end
  local workers = redis.call('HGET', taskKey, 'workers')
  if not workers then
    return false
  end
  local decoded, list = pcall(cjson.decode, workers)
  return decoded and type(list) == 'table' and #list == tonumber(attempt)
end

local out = {}
-- Nil until something is stored, then false while nobody listens: no entry is then built.
local entries = nil
for e = 1, #KEYS / 2 do
  local taskKey = KEYS[2 * e]
  local id = ARGV[5 * e - 3]
  local stored = ARGV[5 * e - 1]
  if holds(KEYS[2 * e - 1], taskKey, id, ARGV[5 * e - 2]) then
    redis.call('HSET', taskKey, 'progress', stored)
    if entries == nil then
      entries = liveListened(ARGV[1]) and {} or false
    end
    if entries then
      entries[#entries + 1] = string.format('[%s,%s,%s,%s]',
        cjson.encode(id), cjson.encode(ARGV[5 * e]), cjson.encode(ARGV[5 * e + 1]), stored)
    end
    out[e] = 1
  else
    out[e] = 0
  end
end
if entries then
  publishLive(ARGV[1], 'progressed', entries)
end
return out
