#!lua
--[[
  Store new tasks of which some carry a unique key, in one atomic step: the
  key is checked and taken in the same script that stores the task, so many
  concurrent enqueues of one key make exactly one task. enqueue.lua stays the
  path of a batch without keys (its cost is tuned); a batch with any key
  comes here whole, so it stays all or none. Records are decided as if sent
  one by one: a key taken by an earlier record of the call holds for the
  later ones; the decision mirrors StoreRules.planUnique
  (lib/lifecycle/unique-enqueue-plan.ts), pinned by the unique-key contract.
  The script first checks every id (a stored id is refused as
  enqueue.lua refuses it, before any key is looked at), then decides every
  record without writing, so a refusal writes nothing, then writes. All or
  none (a bulk enqueue): a refusal (a stored id, a window whose task is
  gone) refuses the call. Each (single enqueues gathered into one call): it
  refuses only its own record, which then takes no key, as if it came alone.

  Who holds a key: the window STRING while it lives (it expires by itself,
  PX), else the index HASH. A holder holds while its task is unfinished: its
  hash has data and no outcome. The index keeps a field whose holder ended
  until the maintenance pass forgets it (forgetFreeKeys-1.lua); it is read
  as free here at once. The decision is decideUnique's (lib/core/unique-key.ts):
  debounce replaces a holder that waits never started in this queue (its
  data, score and due time; its id kept); a live window returns its holder,
  or refuses when that task is gone; otherwise an unfinished holder is
  returned, except in debounce mode, which makes a task that takes the key.

  Sequence, scores, the deferred set (a deferred task keeps its ready score
  in its hash), ingress counts and wake-up tokens are written as enqueue.lua
  writes them (countEnqueued.function.lua, prepended, is shared). A replaced
  task gets a new sequence number and is not counted as ingress again. The
  #!lua line makes Redis refuse the whole script before it runs when memory
  is over maxmemory. The tasks it makes (not a holder returned or replaced)
  are announced as enqueued on the live channel (ARGV[8]) while someone
  listens there (publishLive.function.lua, prepended): one EXISTS per call
  that writes, while nobody does.

  KEYS[1] sequence (STRING) counter of enqueued tasks, the FIFO tie-break
  KEYS[2] unique key index (HASH) field = unique key, value = id of the task that took it
  Variadic KEYS: then 4 per queue, queue q (from 1) uses
  KEYS[4q-1] ready queue (ZSET) score = -priority * weight + enqueue sequence
  KEYS[4q] deferred set (ZSET) score = due time (ms, Redis's clock)
  KEYS[4q+1] ingress counts (HASH) of the queue, one per hour: this name followed by the hour
  since epoch (by Redis's time) is the hash, field = second since epoch, value = tasks enqueued
  KEYS[4q+2] wake-up tokens (LIST) of the queue

  Derived keys: task hash = ARGV[3] .. id (HASH), window of a key = ARGV[5] ..
  unique key (STRING, value = holder id, expires when the window ends), an
  hour's ingress counts of queue q = KEYS[4q+1] .. hour (HASH), same hash tag as KEYS

  ARGV[1] how many tokens a wake-up list keeps (count)
  ARGV[2] weight of one priority step in a score (number, larger than any sequence number)
  ARGV[3] task key prefix (string)
  ARGV[4] result TTL (ms): an hour's ingress hash expires this long after the hour ends
  ARGV[5] window key prefix (string)
  ARGV[6] running status word (string)
  ARGV[7] 1 for each (a refusal refuses only its record), 0 for all or none
  ARGV[8] pub/sub channel of the alias's live events (string), also the name of its
  listener mark (STRING, same hash tag as KEYS; see publishLive)
  ARGV[9] the queues' names in KEYS order, separated by spaces (string; names hold no whitespace)
  Then 8 per record: queue index q, priority (whole number), delay (ms from
  when Redis runs this, empty when ready now), task id (string), task data
  (JSON), unique key (empty for none), mode (unfinished, window or
  debounce; empty for none), window ttl (ms; empty unless window)

  Publishes once on ARGV[8] when it made tasks and someone listens:
  [enqueued, [[id, queue, name], ...] ] (see publishLive)

  Returns {-1, id, then the stored hash's fields data, status, startedAt,
  lastAttemptedAt, workers, outcome} when a task with that id is already
  stored; {-2, key, holder id, window end (ms, Redis's clock)} when a window
  holds a key whose task is gone; nothing is written in either case.
  Otherwise {0, then per record: 0 (stored), or 1, holder id, its six
  fields as above (returned), or 2, id (this record's data stored under that
  id: a waiting holder replaced), or 3, r (returned: the holder written by
  record r of this call, from 1); each only: or 4, then the six fields of
  the task stored under its id (refused), or 5, key, holder id, window end
  (refused: a window holds its key whose task is gone)}
  Errors OOM before anything runs when Redis is over maxmemory; a command's
  error on a key of another type under our prefix, before anything is written
]]

local FIRST = 10
local PER = 8
local bound = tonumber(ARGV[1])
local weight = tonumber(ARGV[2])
local prefix = ARGV[3]
local windowPrefix = ARGV[5]
local running = ARGV[6]
local each = ARGV[7] == '1'
local now = storeClock()
local count = (#ARGV - FIRST + 1) / PER
local FIELDS = { 'data', 'status', 'startedAt', 'lastAttemptedAt', 'workers', 'outcome' }

-- Each: the stored hash's fields of every record refused for its id.
local taken = {}
for r = 0, count - 1 do
  local id = ARGV[FIRST + r * PER + 3]
  if redis.call('EXISTS', prefix .. id) == 1 then
    local stored = redis.call('HMGET', prefix .. id, unpack(FIELDS))
    if not each then
      return { -1, id, stored[1], stored[2], stored[3], stored[4], stored[5], stored[6] }
    end
    taken[r] = stored
  end
end

-- Where the holder of a key stands (HolderState); `fresh` only when it waits in queue q.
local function holderState(id, q, mode)
  local f = redis.call('HMGET', prefix .. id, 'data', 'outcome', 'status', 'workers')
  if not f[1] then
    return 'gone'
  end
  if f[2] then
    return 'final'
  end
  if f[3] == running then
    return 'running'
  end
  if f[4] and f[4] ~= '[]' then
    return 'started'
  end
  if mode ~= 'debounce' then
    return 'fresh'
  end
  if redis.call('ZSCORE', KEYS[4 * q - 1], id) or redis.call('ZSCORE', KEYS[4 * q], id) then
    return 'fresh'
  end
  return 'started'
end

local function decide(mode, state, windowHeld)
  if mode == 'debounce' and state == 'fresh' then
    return 'replace'
  end
  if windowHeld then
    return state == 'gone' and 'gone' or 'return'
  end
  if mode == 'debounce' or state == 'final' or state == 'gone' then
    return 'create'
  end
  return 'return'
end

-- Decide every record first. writes[r]: what record r writes (kind, target id, key it takes).
local writes = {}
local planned = {}
local out = { 0 }
for r = 0, count - 1 do
  local a = FIRST + r * PER
  local q, id, key, mode = tonumber(ARGV[a]), ARGV[a + 3], ARGV[a + 5], ARGV[a + 6]
  if taken[r] then
    out[#out + 1] = 4
    for i = 1, 6 do
      out[#out + 1] = taken[r][i]
    end
  elseif key == '' then
    writes[r] = { kind = 'add', id = id }
    out[#out + 1] = 0
  else
    local hold = planned[key]
    local holderId, windowEnd, state
    if hold then
      holderId, windowEnd = hold.id, hold.windowEnd
      state = tonumber(ARGV[FIRST + hold.r * PER]) == q and 'fresh' or 'started'
    else
      holderId = redis.call('GET', windowPrefix .. key)
      if holderId then
        windowEnd = now + redis.call('PTTL', windowPrefix .. key)
      else
        holderId = redis.call('HGET', KEYS[2], key)
      end
      state = holderId and holderState(holderId, q, mode) or 'gone'
    end
    local decision = decide(mode, state, windowEnd ~= nil and windowEnd > now)
    if decision == 'gone' then
      if not each then
        return { -2, key, holderId, string.format('%.0f', windowEnd) }
      end
      out[#out + 1] = 5
      out[#out + 1] = key
      out[#out + 1] = holderId
      out[#out + 1] = string.format('%.0f', windowEnd)
    elseif decision == 'return' then
      if hold then
        out[#out + 1] = 3
        out[#out + 1] = hold.r + 1
      else
        local f = redis.call('HMGET', prefix .. holderId, unpack(FIELDS))
        out[#out + 1] = 1
        out[#out + 1] = holderId
        for i = 1, 6 do
          out[#out + 1] = f[i]
        end
      end
    elseif decision == 'replace' then
      local write = { kind = 'replace', id = holderId }
      if hold then
        -- A holder this call wrote: this record's data goes in its place.
        write = writes[hold.r]
        writes[hold.r] = nil
        write.id = holderId
      end
      writes[r] = write
      planned[key] = { r = r, id = holderId, windowEnd = windowEnd }
      out[#out + 1] = 2
      out[#out + 1] = holderId
    else
      local ends = mode == 'window' and now + tonumber(ARGV[a + 7]) or nil
      writes[r] = { kind = 'add', id = id, key = key, ttl = mode == 'window' and ARGV[a + 7] }
      planned[key] = { r = r, id = id, windowEnd = ends }
      out[#out + 1] = 0
    end
  end
end

local total = 0
for r = 0, count - 1 do
  if writes[r] then
    total = total + 1
  end
end
local sequence = redis.call('INCRBY', KEYS[1], total) - total
local ingress, readied = {}, {}
-- Nil while nobody listens: no entry is then built.
local enqueued = total > 0 and liveListened(ARGV[8]) and {} or nil
for r = 0, count - 1 do
  local write = writes[r]
  if write then
    local a = FIRST + r * PER
    local q, delay = tonumber(ARGV[a]), ARGV[a + 2]
    local taskKey = prefix .. write.id
    if enqueued and write.kind == 'add' then
      enqueued[#enqueued + 1] = '[' .. cjson.encode(write.id) .. ',' ..
        cjson.encode(queueWord(ARGV[9], q)) .. ',' .. liveTaskName(ARGV[a + 4]) .. ']'
    end
    sequence = sequence + 1
    -- A whole number below 2^53: redis.call passes it on with every digit (%.17g).
    local score = -tonumber(ARGV[a + 1]) * weight + sequence
    if write.kind == 'replace' then
      redis.call('ZREM', KEYS[4 * q - 1], write.id)
      redis.call('ZREM', KEYS[4 * q], write.id)
    else
      ingress[q] = (ingress[q] or 0) + 1
    end
    redis.call('HSET', taskKey, 'data', ARGV[a + 4])
    if delay ~= '' then
      redis.call('HSET', taskKey, 'score', score)
      redis.call('ZADD', KEYS[4 * q], string.format('%.0f', now + tonumber(delay)), write.id)
    else
      redis.call('ZADD', KEYS[4 * q - 1], score, write.id)
      readied[q] = (readied[q] or 0) + 1
    end
    if write.key then
      redis.call('HSET', KEYS[2], write.key, write.id)
      if write.ttl then
        redis.call('SET', windowPrefix .. write.key, write.id, 'PX', write.ttl)
      end
    end
  end
end

local second = math.floor(now / 1000)
local hour = math.floor(second / 3600)
for q = 1, (#KEYS - 2) / 4 do
  countEnqueued(
    KEYS[4 * q + 1] .. hour,
    second,
    (hour + 1) * 3600000 + tonumber(ARGV[4]),
    ingress[q] or 0,
    KEYS[4 * q + 2],
    readied[q] or 0,
    bound
  )
end
if enqueued then
  publishLive(ARGV[8], 'enqueued', enqueued)
end

return out
