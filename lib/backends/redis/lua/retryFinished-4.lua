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
  lastAttemptedAt kept. The #!lua line makes Redis refuse the call before it
  runs when memory is over maxmemory.

  KEYS[1] task hash (HASH) data, status and workers replaced, outcome removed
  KEYS[2] history (ZSET) set of the task's final status in its queue
  KEYS[3] ready queue (ZSET) of the task's queue
  KEYS[4] wake-up tokens (LIST) of the task's queue

  ARGV[1] task id (string)
  ARGV[2] the task's `outcome` field as the caller read it (JSON)
  ARGV[3] ready status word (string)
  ARGV[4] task data (JSON, the live encoding)
  ARGV[5] worker ids (JSON array)
  ARGV[6] ready score to use when the hash has none (number)
  ARGV[7] longest a wake-up list may grow (count)

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
return 1
