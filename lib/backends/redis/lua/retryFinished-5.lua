#!lua
--[[
  Send a final (FAILED or CANCELLED) task back by hand for a new attempt, in
  one step: out of its history set, READY in its ready queue at once with a
  wake-up token, its hash no longer expiring. The READY record was built by
  the caller from the task as it read it, so the task goes back only while
  its `outcome` field is still the one the caller read: two retries of one
  task make one new attempt, and a task changed or gone in between is left
  alone. Its data is replaced (the errors it kept, runAfter cleared), its
  worker ids kept so its history shows, its score, startedAt and
  lastAttemptedAt kept. A task with a unique key it held while unfinished
  (not a debounced one, which held it only until it first ran) holds it
  again as it waits, unless another unfinished task took it meanwhile:
  its key was freed when it ended, and the index field may be gone already
  (forgetFreeKeys) or name a task that has ended since. The #!lua line
  makes Redis refuse the call before it runs when memory is over maxmemory.

  KEYS[1] task hash (HASH) data, status and workers replaced, outcome removed
  KEYS[2] history (ZSET) set of the task's final status in its queue
  KEYS[3] ready queue (ZSET) of the task's queue
  KEYS[4] wake-up tokens (LIST) of the task's queue
  KEYS[5] unique key index (HASH) field = unique key, value = id of the task that holds it

  Derived keys: the hash of the task an index field names = ARGV[9] .. its id (HASH), the
  window of the key = ARGV[10] .. unique key (STRING, value = holder id); same hash tag as KEYS

  ARGV[1] task id (string)
  ARGV[2] the task's `outcome` field as the caller read it (JSON)
  ARGV[3] ready status word (string)
  ARGV[4] task data (JSON, the live encoding)
  ARGV[5] worker ids (JSON array)
  ARGV[6] ready score to use when the hash has none (number)
  ARGV[7] longest a wake-up list may grow (count)
  ARGV[8] the unique key it takes again, empty for none (string)
  ARGV[9] task hash key prefix (string)
  ARGV[10] window key prefix (string)

  Returns 1 sent back, 0 changed or gone since the caller read it (nothing changed)
  Errors OOM before anything runs when Redis is over maxmemory
]]

if redis.call('TYPE', KEYS[1]).ok ~= 'hash' or redis.call('HGET', KEYS[1], 'outcome') ~= ARGV[2] then
  return 0
end
local kept = redis.call('HMGET', KEYS[1], 'score', 'startedAt', 'lastAttemptedAt')
local score = kept[1] or ARGV[6]
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'data', ARGV[4], 'status', ARGV[3], 'workers', ARGV[5], 'score', score)
if kept[2] then
  redis.call('HSET', KEYS[1], 'startedAt', kept[2])
end
if kept[3] then
  redis.call('HSET', KEYS[1], 'lastAttemptedAt', kept[3])
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], score, ARGV[1])
if redis.call('LPUSH', KEYS[4], '1') > tonumber(ARGV[7]) then
  redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[7]) - 1)
end
if ARGV[8] ~= '' then
  local holder = redis.call('HGET', KEYS[5], ARGV[8])
  local windowHolder = redis.call('GET', ARGV[10] .. ARGV[8])
  local free = not holder or holder == ARGV[1]
  if windowHolder and windowHolder ~= ARGV[1] then
    -- Another task's window still holds it.
    free = false
  elseif not free then
    local holderKey = ARGV[9] .. holder
    free = redis.call('EXISTS', holderKey) == 0 or redis.call('HEXISTS', holderKey, 'outcome') == 1
  end
  if free then
    redis.call('HSET', KEYS[5], ARGV[8], ARGV[1])
  end
end
return 1
