--[[
  Store new tasks in one atomic step, one or many (bulk enqueue is one call).
  Every id is checked first, so a clash writes nothing: a second enqueue of
  an id must never overwrite a task another worker may be running. Each task
  gets its hash (with a TTL so abandoned data cannot outlive its usefulness),
  an ingress event for telemetry, and a place in the ready queue or, with a
  future runAfter, in the deferred set. Its ready score is priority first,
  then a per-alias sequence number, so tasks of one priority leave in exactly
  the order they came, even many in one millisecond. A deferred task keeps
  that score in its hash for the mover; a ready one needs no copy while it
  waits (acquire writes it for release), which keeps a waiting task small,
  as does the sequence number standing in for the id as the ingress event.
  Ready tasks push wake-up tokens so an idle consumer blocked on the queue's
  wake-up list returns at once; the list is trimmed so tokens nobody waits
  for cannot pile up.

  Variadic KEYS: one fixed key, then 4 per task
  KEYS[1] sequence (STRING) counter of enqueued tasks, the FIFO tie-break
  Task i (from 1) uses
  KEYS[4i-2] task (HASH) the task's data (and ready score when deferred), created here
  KEYS[4i-1] target (ZSET) the ready queue, or the deferred set when runAfter is in the future
  KEYS[4i] ingress events (ZSET) of the task's queue, member = sequence number
  KEYS[4i+1] wake-up tokens (LIST) of the task's queue

  ARGV[1] longest a wake-up list may grow (count)
  ARGV[2] enqueue time, the ingress event's score (ms since epoch)
  ARGV[3] weight of one priority step in a score (number, larger than any sequence number)
  Then 5 per task, task i uses
  ARGV[5i-1] task id (string)
  ARGV[5i] serialized task data (JSON)
  ARGV[5i+1] priority (whole number, higher runs first)
  ARGV[5i+2] time the hash lives (ms)
  ARGV[5i+3] runAfter when it is in the future (ms since epoch), empty when the task is ready now

  Returns {count of tasks stored}
  Errors {-1, id} when a task hash with that id already exists; nothing is written
]]

local taskCount = (#KEYS - 1) / 4
for i = 1, taskCount do
  if redis.call('EXISTS', KEYS[4 * i - 2]) == 1 then
    return { -1, ARGV[5 * i - 1] }
  end
end

local first = redis.call('INCRBY', KEYS[1], taskCount) - taskCount
local weight = tonumber(ARGV[3])
local wakeCounts = {}
for i = 1, taskCount do
  local taskKey = KEYS[4 * i - 2]
  local id = ARGV[5 * i - 1]
  -- %.0f: Lua would print a large number in exponent form, losing digits.
  local score = string.format('%.0f', -tonumber(ARGV[5 * i + 1]) * weight + first + i)
  local runAfter = ARGV[5 * i + 3]
  if runAfter == '' then
    redis.call('HSET', taskKey, 'data', ARGV[5 * i])
    redis.call('ZADD', KEYS[4 * i - 1], score, id)
    local wakeKey = KEYS[4 * i + 1]
    wakeCounts[wakeKey] = (wakeCounts[wakeKey] or 0) + 1
  else
    redis.call('HSET', taskKey, 'data', ARGV[5 * i], 'score', score)
    redis.call('ZADD', KEYS[4 * i - 1], runAfter, id)
  end
  redis.call('PEXPIRE', taskKey, ARGV[5 * i + 2])
  redis.call('ZADD', KEYS[4 * i], ARGV[2], first + i)
end

local bound = tonumber(ARGV[1])
for wakeKey, count in pairs(wakeCounts) do
  local tokens = {}
  for t = 1, math.min(count, bound) do
    tokens[t] = '1'
  end
  if redis.call('LPUSH', wakeKey, unpack(tokens)) > bound then
    redis.call('LTRIM', wakeKey, 0, bound - 1)
  end
end

return { taskCount }
