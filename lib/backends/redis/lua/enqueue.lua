#!lua
--[[
  Store new tasks in one atomic step, one or many (bulk enqueue is one call).
  A second enqueue of an id must never overwrite a task another worker may
  be running, so each task's data is written only where none is (HSETNX).
  All or none (a bulk enqueue): on the first clash the hashes this call made
  are deleted and nothing is written. Each (single enqueues gathered into
  one call): a clash refuses only its own task, whose hash is left as it
  was, and the others are stored as if each came alone. A task's hash has no expiry: a
  task waits as long as it takes (a weekend without workers, a deferral of
  a month); only a finished one expires, resultTtl after it finished
  (storeFinished). A deferred task comes with its delay, measured on the caller's
  clock right before sending, and is due at Redis's time plus that delay
  (storeClock): the caller's runAfter keeps its meaning on the caller's
  clock however far that clock is from Redis's, and the due time is
  compared with Redis's time only. Its ready score is priority
  first, then a per-alias sequence number, so tasks of one priority leave in
  exactly the order they came, even many in one millisecond. A deferred task
  keeps that score in its hash for its promotion; a ready one needs no copy while
  it waits (acquire writes it for release), which keeps a waiting task small.
  Ingress is counted per second of Redis's time in one hash per queue and
  hour (no per-task entry), which expires once its hour is past the result
  TTL; telemetry reads its windows by Redis's time too. Ready tasks
  push wake-up tokens so an idle consumer blocked on the queue's wake-up list
  returns at once; the list is trimmed so tokens nobody waits for cannot pile up.
  A call that would change nothing is left out: the hour's ingress hash gets
  its expiry when a second's field is new (its expiry is the same all hour),
  and a token list full because no consumer waits (busy workers pop none) is
  trimmed back to the bound only once it has doubled, not at every enqueue.
  A pickup's latency starts with this script, so it builds few tables: it
  walks ARGV twice instead of copying it into per-group tables, undoes a
  clash by walking it again, and writes ingress and tokens once per run of
  groups on one queue (one run in a single enqueue). docs/benchmarks.md says
  why each call and table counts here, and which figures show it. The tasks
  stored are announced as enqueued on the live channel (ARGV[6]) while
  someone listens there (publishLive.function.lua, prepended): one EXISTS
  per call while nobody does.

  Tasks come in groups that share a queue, a priority and a delay, so a
  task costs two arguments (id, data) and its hash key is derived. Long
  lists go to Redis through callInSlices (callInSlices.function.lua, prepended).
  The #!lua line makes Redis refuse the whole script before it runs when
  memory is over maxmemory (a script without flags would run until its
  first refused write and stop halfway), so a full Redis stores nothing and
  says so (an OOM error), never an id that only looks taken.

  KEYS[1] sequence (STRING) counter of enqueued tasks, the FIFO tie-break
  Variadic KEYS: then 4 per queue, queue q (from 1) uses
  KEYS[4q-2] ready queue (ZSET) score = -priority * weight + enqueue sequence
  KEYS[4q-1] deferred set (ZSET) score = due time (ms, Redis's clock)
  KEYS[4q] ingress counts (HASH) of the queue, one per hour: this name followed by the hour
  since epoch (by Redis's time) is the hash, field = second since epoch, value = tasks enqueued
  KEYS[4q+1] wake-up tokens (LIST) of the queue

  Derived keys: task hash = ARGV[3] .. id (HASH), an hour's ingress counts
  of queue q = KEYS[4q] .. hour (HASH), same hash tag as KEYS

  ARGV[1] how many tokens a wake-up list keeps (count): a longer one is trimmed to it once it doubles
  ARGV[2] weight of one priority step in a score (number, larger than any sequence number)
  ARGV[3] task key prefix (string)
  ARGV[4] result TTL (ms): an hour's ingress hash expires this long after the hour ends
  ARGV[5] 1 for each (a clash refuses only its task), 0 for all or none
  ARGV[6] pub/sub channel of the alias's live events (string), also the name of its
  listener mark (STRING, same hash tag as KEYS; see publishLive)
  ARGV[7] the queues' names in KEYS order, separated by spaces (string; names hold no whitespace)
  Then per group: queue index q, priority (whole number, higher runs first),
  delay (ms from when Redis runs this, empty when ready now), task count n,
  then n pairs of task id (string) and task data (JSON)

  Publishes once on ARGV[6] when it stored tasks and someone listens:
  [enqueued, [[id, queue, name], ...] ] (see publishLive)

  Returns {count of tasks stored}, or {-1, id, then the stored hash's fields
  data, status, startedAt, lastAttemptedAt, workers, outcome (false when absent)}
  when a task with that id is already stored and nothing is written (all or
  none); each: {count of tasks stored, then per task refused: its position in
  the call (from 1) and the six fields of the stored hash}
  Errors OOM before anything runs when Redis is over maxmemory; a task hash
  command's error (WRONGTYPE for a key of another type under a task's name),
  after what this call wrote is undone
]]

local FIRST_GROUP = 8
local prefix = ARGV[3]
local each = ARGV[5] == '1'
local now = storeClock()
local second = math.floor(now / 1000)
-- Each: the ARGV index of every refused task's id (nil while none is), and the reply so far.
local refused
local reply = { 0 }

-- Deletes the hashes this call wrote, up to (not including) the task whose id is ARGV[upTo].
local function undo(upTo)
  local written = {}
  local g = FIRST_GROUP
  while g < upTo do
    for i = g + 4, math.min(g + 2 + 2 * tonumber(ARGV[g + 3]), upTo - 2), 2 do
      if not (refused and refused[i]) then
        written[#written + 1] = prefix .. ARGV[i]
      end
    end
    g = g + 4 + 2 * tonumber(ARGV[g + 3])
  end
  callInSlices('DEL', false, written)
end

local total = 0
local position = 0
local a = FIRST_GROUP
while a <= #ARGV do
  local count = tonumber(ARGV[a + 3])
  for i = a + 4, a + 2 + 2 * count, 2 do
    position = position + 1
    local taskKey = prefix .. ARGV[i]
    -- pcall: an error here must not leave the hashes written before it behind.
    local set = redis.pcall('HSETNX', taskKey, 'data', ARGV[i + 1])
    if set ~= 1 then
      local stored = set == 0
        and redis.call('HMGET', taskKey, 'data', 'status', 'startedAt', 'lastAttemptedAt', 'workers', 'outcome')
      if each and stored then
        refused = refused or {}
        refused[i] = true
        reply[#reply + 1] = position
        for f = 1, 6 do
          reply[#reply + 1] = stored[f]
        end
      else
        undo(i)
        if not stored then
          return set
        end
        return { -1, ARGV[i], stored[1], stored[2], stored[3], stored[4], stored[5], stored[6] }
      end
    else
      total = total + 1
    end
  end
  a = a + 4 + 2 * count
end

local sequence = redis.call('INCRBY', KEYS[1], total) - total
local weight = tonumber(ARGV[2])
local bound = tonumber(ARGV[1])
local hour = math.floor(second / 3600)
-- Ingress and tokens are written once per run of groups on one queue (usually the whole call).
local expireAt = (hour + 1) * 3600000 + tonumber(ARGV[4])
local runQueue, runIngress, runReadied = nil, 0, 0
local function endRun()
  countEnqueued(
    KEYS[4 * runQueue] .. hour,
    second,
    expireAt,
    runIngress,
    KEYS[4 * runQueue + 1],
    runReadied,
    bound
  )
  runIngress, runReadied = 0, 0
end

-- Nil while nobody listens: no entry is then built.
local enqueued = liveListened(ARGV[6]) and {} or nil
a = FIRST_GROUP
while a <= #ARGV do
  local q = tonumber(ARGV[a])
  local count = tonumber(ARGV[a + 3])
  local delay = ARGV[a + 2]
  local deferred = delay ~= ''
  -- Text, formatted once: a number would be formatted again for every task of the group.
  local runAt = deferred and string.format('%.0f', now + tonumber(delay))
  if q ~= runQueue then
    if runQueue then
      endRun()
    end
    runQueue = q
  end
  local base = -tonumber(ARGV[a + 1]) * weight + sequence
  local batch = {}
  local n = 0
  local queueJson = enqueued and cjson.encode(queueWord(ARGV[7], q))
  for i = 1, count do
    local at = a + 2 + 2 * i
    if not (refused and refused[at]) then
      n = n + 1
      local id = ARGV[at]
      if enqueued then
        enqueued[#enqueued + 1] =
          '[' .. cjson.encode(id) .. ',' .. queueJson .. ',' .. liveTaskName(ARGV[at + 1]) .. ']'
      end
      -- A whole number below 2^53: redis.call passes it on with every digit (%.17g).
      local score = base + n
      if deferred then
        redis.call('HSET', prefix .. id, 'score', score)
        batch[2 * n - 1] = runAt
      else
        batch[2 * n - 1] = score
      end
      batch[2 * n] = id
    end
  end
  callInSlices('ZADD', KEYS[deferred and 4 * q - 1 or 4 * q - 2], batch)
  sequence = sequence + n
  runIngress = runIngress + n
  if not deferred then
    runReadied = runReadied + n
  end
  a = a + 4 + 2 * count
end
endRun()
if enqueued then
  publishLive(ARGV[6], 'enqueued', enqueued)
end

reply[1] = total
return reply
