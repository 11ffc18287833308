#!lua flags=allow-oom
--[[
  Lease up to a given number of the best ready tasks to one worker, from the
  first queue (in the order given) that has any, after storing the tasks the
  worker finished since its last call: a busy slot then costs one round trip
  per task, not an acknowledge and an acquire. Storing follows
  storeFinished (storeFinished.function.lua, prepended), the same rules as
  acknowledge.lua. Popping, marking RUNNING and entering the running set
  under a lease deadline happen in one step, so a task is never held by two
  workers and never lost between queue and lease. Marking RUNNING mirrors
  StoreRules.leased and the room of a limited queue mirrors limitRoom
  (lib/lifecycle/unleased.ts, limit-room.ts); the limit and lease contracts
  pin them. Only the small mutable hash
  fields are written (no JSON decoded or encoded here), which keeps the
  script cheap per task; the ready score goes into the hash too, so release
  can put the task back in its place. A popped id without task data is still
  leased and returned without data, so the caller can fail it visibly
  instead of it vanishing or blocking the queue. When the batch was full and
  work remains, one wake-up token is pushed so another idle consumer takes
  the rest (wake-ups are bounded, so they must chain). When a queue is found
  or left empty its tokens are stale, and are dropped, so a consumer that
  goes idle after a busy spell blocks at once instead of spinning through
  tokens for work that is gone. When the caller names its worker pool, each
  task records that pool and joins the pool's task set, so a dead pool's
  tasks can be found without scanning every running task. A running set is
  created as a skiplist: Redis keeps a ZSET of up to 128 short members as a
  listpack, where every ZADD, ZMSCORE and ZREM scans all members, and once
  a member too long for a listpack has made it a skiplist Redis never turns
  it back. So a lease of at least SEED_FROM tasks into a missing running set
  adds SKIPLIST_SEED with it and removes it again in this call: no reader
  ever sees it, and the set stays a skiplist until it empties and its key is
  deleted. A smaller lease leaves the set to Redis: a few members scan
  quickly, and the check and the seed would take three calls where one ZADD
  does on every lease of a worker with one slot, whose set empties after
  each task (docs/benchmarks.md says why, and which figures show it). It
  runs when Redis is over maxmemory (allow-oom): a full Redis must still
  drain, or its waiting tasks would hold the memory for good; a finished task then expires (resultTtl, retention) where a waiting
  one never does, and enqueues, which only add, stay refused. Its writes go
  past maxmemory by what a lease and a stored outcome add to a task (about
  half a kilobyte) until the results expire or are trimmed. Every time it writes (lease
  deadline, startedAt, lastAttemptedAt, history score) is Redis's own
  (storeClock), read only when something is stored or leased, so an idle
  worker's empty look costs no TIME. A caller that names its pool leases
  nothing while that pool's heartbeat deadline has passed by Redis's clock,
  or was never written: another pool's maintenance pass may be recovering the pool's
  tasks as lost at this moment, and a task leased now would be failed (or
  run twice) by that recovery. The caller stores its finished tasks all the
  same, is told, and waits for its pool to beat again. A paused queue (a
  member of the paused set) is skipped, here where the lease is taken, so no
  task of it starts once the pause is stored. Asking costs one SCARD per
  leasing call while nothing is paused; only when something is, the queue
  names (ARGV[12]) are read. Its tokens are dropped with the others' when
  nothing is leased, so an enqueue to a paused queue wakes an idle consumer
  once, not a chain of them (resumeQueue-3.lua pushes them again). A
  queue's limits ride on the same read: while any queue has limits, the
  paused set holds the member ':limits' (no queue name has a colon), so the
  one SMISMEMBER that reads the pause also says whether to read the limits
  hash (one HMGET). An unlimited alias pays nothing more. A limited queue
  leases at most its room: its concurrency less its running set's ZCARD, and
  its rate limit's max less the starts in its sliding window (a ZSET of
  start times on Redis's clock, trimmed by ZREMRANGEBYSCORE, each start
  added as it is leased). A full queue is skipped like a paused one, its
  tokens dropped with the others' when nothing is leased; the reply then
  says when its window admits a start, so the caller bounds its wait by it.
  A finish frees a concurrency share without a wake-up token, so a queue
  full by its concurrency says CONCURRENCY_RECHECK_MS: a waiting caller looks
  again that soon, and only while a limited queue is full. The ids leased
  are announced as started on the live channel (ARGV[14]) while someone
  listens there (publishLive.function.lua, prepended); one EXISTS of both
  listener marks, asked only when the call stores or leases, is all an
  alias nobody listens to pays for either channel.

  KEYS[1] task set (SET) of the caller's pool; untouched when ARGV[7] is empty
  KEYS[2] live pools (ZSET) score = heartbeat deadline (ms); read only when ARGV[7] is not empty
  KEYS[3] paused queues (SET) of the alias, member = queue name or ':limits'; read only when ARGV[3] > 0
  KEYS[4] queue limits (HASH) field = queue name, value = 'concurrency max perMs' (0 for none); read only when KEYS[3] holds ':limits'
  Variadic KEYS: then 4 per queue, queue q (from 1, in consumption order) uses
  KEYS[4q+1] ready queue (ZSET) score = -priority * weight + enqueue sequence
  KEYS[4q+2] running set (ZSET) score = lease deadline (ms)
  KEYS[4q+3] wake-up tokens (LIST) of the queue
  KEYS[4q+4] rate window (ZSET) member = start time and task id, score = start time (ms); only for a rate-limited queue
  then 2 per group of finished records sharing a queue, a final status and a task name,
  group g (from 1, after the Q = ARGV[8] queues) uses
  KEYS[4Q+2g+3] running set (ZSET) of the group's queue
  KEYS[4Q+2g+4] history (ZSET) successful, failed or cancelled set of the queue, scored by the time it was stored

  Derived keys: task hash = ARGV[5] .. id (HASH), pool task set = ARGV[10] ..
  pool id (SET), same hash tag as KEYS

  ARGV[1] 1 when the call was sent behind an idle wait (it runs when the wait ends), else 0 (flag)
  ARGV[2] lease length (ms): the lease deadline is Redis's time plus this
  ARGV[3] most tasks to take (count, 0 to only store)
  ARGV[4] worker id, JSON-encoded (string)
  ARGV[5] task key prefix (string)
  ARGV[6] running status word (string)
  ARGV[7] worker pool id, or empty when the caller belongs to no pool (string)
  ARGV[8] how many queues KEYS name (count)
  ARGV[9] result TTL (ms)
  ARGV[10] pool task set key prefix (string)
  ARGV[11] pool the finished tasks belong to: a pool id, empty for none, or * to read each task's (string)
  ARGV[12] the queues' names in KEYS order, separated by spaces (string; names hold no whitespace)
  ARGV[13] pub/sub channel of the alias's finished tasks (string), also the name of its
  listener mark (STRING, same hash tag as KEYS; see storeFinished)
  ARGV[14] pub/sub channel of the alias's live events (string), also the name of its
  listener mark (STRING, same hash tag as KEYS; see publishLive)
  Then per group of finished records, in KEYS order: its label (JSON [queue,
  status, task name]), its record count n, then n pairs of task id (string)
  and outcome (JSON, see RedisRecordCodec.encodeFinished)

  Publishes once on ARGV[13] when it stored any finished task and someone
  listens (see storeFinished): one message per call, however many it
  stored; a call that only leases publishes nothing there.
  Publishes once on ARGV[14] when it leased tasks with data and someone listens:
  [started, [[id, queue, name], ...] ] (see publishLive).

  Returns {n, then n store outcomes (1 stored, 0 stale, 2 already stored), in order, then the
  queue index q (0 when every queue is empty, -1 when the caller's pool has lapsed); when
  q = 0, then the ms until a limited queue skipped as full may admit a start (0 for none); when
  q > 0, then Redis's time used (ms) and 5 per leased task: id, data JSON or false when
  missing, startedAt ms, worker ids JSON, the time a cancel was asked of it (ms, written by
  cancel-5.lua; false when none); when q = -1, then Redis's time (ms) and the pool's
  heartbeat deadline (ms, false when it has none)}
  Errors none for memory (allow-oom); any error reply but WRONGTYPE of a task hash command (callSkippingWrongType)
]]

local SEED_FROM = 16
local CONCURRENCY_RECHECK_MS = 50
local sentBehindWait = ARGV[1] == '1'
local max = tonumber(ARGV[3])
local workerJson = ARGV[4]
local prefix = ARGV[5]
local pool = ARGV[7]
local queueCount = tonumber(ARGV[8])
local storing = #KEYS > 4 * queueCount + 4
local checksPool = pool ~= '' and max > 0
-- Redis's time, read only when something is stored or leased; `now` is its text, for writing.
local clock, now = nil, nil
if storing or checksPool then
  clock, now = storeClock()
end

-- Whether either channel's mark exists: one EXISTS of both, asked once, only when needed.
local heard = nil
local function listened()
  if heard == nil then
    heard = anyListened(ARGV[13], ARGV[14])
  end
  return heard
end

-- An idle worker's pickup stores nothing: on its cold path every table built counts.
local out = { 0 }
if storing then
  local stored = storeFinished(4 * queueCount + 5, 15, {
    resultTtl = ARGV[9],
    latest = nil,
    requiredPool = '',
    poolPrefix = ARGV[10],
    callerPool = ARGV[11],
    taskPrefix = prefix,
    now = now,
    channel = ARGV[13],
    heard = listened(),
  })
  out[1] = #stored
  for i = 1, #stored do
    out[i + 1] = stored[i]
  end
end

if checksPool then
  local beat = redis.call('ZSCORE', KEYS[2], pool)
  if not beat or tonumber(beat) <= clock then
    out[#out + 1] = -1
    out[#out + 1] = now
    out[#out + 1] = beat and tonumber(beat) or false
    return out
  end
end

-- Queue index -> true for the paused ones; nil while nothing is paused or limited (one SCARD
-- to know). Queue index -> {concurrency, max, perMs} for the limited ones, nil while none is.
local paused, limits = nil, nil
if max > 0 and redis.call('SCARD', KEYS[3]) > 0 then
  local names = {}
  for name in string.gmatch(ARGV[12], '%S+') do
    names[#names + 1] = name
  end
  paused = {}
  local members = redis.call('SMISMEMBER', KEYS[3], ':limits', unpack(names))
  for q = 1, #names do
    paused[q] = members[q + 1] == 1
  end
  if members[1] == 1 then
    limits = {}
    for q, text in ipairs(redis.call('HMGET', KEYS[4], unpack(names))) do
      if text then
        local c, m, p = string.match(text, '^(%d+) (%d+) (%d+)$')
        if c and (c ~= '0' or m ~= '0') then
          limits[q] = { tonumber(c), tonumber(m), tonumber(p) }
        end
      end
    end
  end
end
-- Soonest a skipped rate-limited queue admits a start (ms), for the reply when nothing is leased.
local limitWait = 0

-- How many of queue q may start now (its room), at most `max`; 0 notes when its window admits.
local function room(q)
  local limit = limits and limits[q]
  if not limit then
    return max
  end
  local most = max
  if limit[1] > 0 then
    most = math.min(most, limit[1] - redis.call('ZCARD', KEYS[4 * q + 2]))
    if most <= 0 and (limitWait == 0 or CONCURRENCY_RECHECK_MS < limitWait) then
      limitWait = CONCURRENCY_RECHECK_MS
    end
  end
  if limit[2] > 0 and most > 0 then
    if not clock then
      clock, now = storeClock()
    end
    local window = KEYS[4 * q + 4]
    redis.call('ZREMRANGEBYSCORE', window, '-inf', clock - limit[3])
    local starts = redis.call('ZCARD', window)
    if starts >= limit[2] then
      -- The start that must leave the window before one more fits in it.
      local oldest = redis.call('ZRANGE', window, starts - limit[2], starts - limit[2], 'WITHSCORES')
      local wait = math.max(1, tonumber(oldest[2]) + limit[3] - clock)
      if limitWait == 0 or wait < limitWait then
        limitWait = wait
      end
    end
    most = math.min(most, limit[2] - starts)
  end
  return math.max(most, 0)
end

-- Built once per call: the workers list of a task on its first attempt.
local firstWorkers = '[' .. workerJson .. ']'
for q = 1, max > 0 and queueCount or 0 do
  local queueKey = KEYS[4 * q + 1]
  local popped = {}
  if not (paused and paused[q]) then
    local most = room(q)
    if most > 0 then
      popped = redis.call('ZPOPMIN', queueKey, most)
    end
  end
  if #popped > 0 then
    if not clock then
      clock, now = storeClock()
    end
    local leaseDeadline = string.format('%.0f', clock + tonumber(ARGV[2]))
    local n = #out + 1
    out[n] = q
    out[n + 1] = now
    n = n + 1
    local lease = {}
    local held = {}
    local heldCount = 0
    -- Nil while nobody listens: no entry is then built.
    local started = listened() and liveListened(ARGV[14]) and {} or nil
    local queueJson = started and cjson.encode(queueWord(ARGV[12], q))
    for i = 1, #popped, 2 do
      local id = popped[i]
      local score = popped[i + 1]
      local taskKey = prefix .. id
      lease[i] = leaseDeadline
      lease[i + 1] = id
      -- A key of another type under our prefix must not abort the batch: it reads as no data.
      local fields =
        callSkippingWrongType('HMGET', taskKey, 'data', 'startedAt', 'workers', 'cancel')
      local data = false
      local cancel = false
      local startedAt = now
      local workers = firstWorkers
      if fields and fields[1] then
        data = fields[1]
        if fields[2] then
          startedAt = fields[2]
        end
        if fields[3] and fields[3] ~= '[]' then
          workers = string.sub(fields[3], 1, -2) .. ',' .. workerJson .. ']'
        end
        if fields[4] then
          cancel = fields[4]
        end
        if pool ~= '' then
          -- A task without data is failed by the caller at once: only readable ones join the pool.
          redis.call('HSET', taskKey, 'status', ARGV[6], 'startedAt', startedAt,
            'lastAttemptedAt', now, 'workers', workers, 'score', score, 'pool', pool)
          heldCount = heldCount + 1
          held[heldCount] = id
        else
          redis.call('HSET', taskKey, 'status', ARGV[6], 'startedAt', startedAt,
            'lastAttemptedAt', now, 'workers', workers, 'score', score)
        end
        if started then
          started[#started + 1] =
            '[' .. cjson.encode(id) .. ',' .. queueJson .. ',' .. liveTaskName(data) .. ']'
        end
      end
      out[n + 1] = id
      out[n + 2] = data
      out[n + 3] = startedAt
      out[n + 4] = workers
      out[n + 5] = cancel
      n = n + 5
    end
    local limit = limits and limits[q]
    if limit and limit[2] > 0 then
      -- Counted by the window from this start; the key outlives the window by nothing.
      local window = KEYS[4 * q + 4]
      local starts = {}
      for i = 1, #popped, 2 do
        starts[i] = now
        starts[i + 1] = now .. ':' .. popped[i]
      end
      redis.call('ZADD', window, unpack(starts))
      redis.call('PEXPIRE', window, limit[3])
    end
    local runningKey = KEYS[4 * q + 2]
    if #popped >= 2 * SEED_FROM and redis.call('EXISTS', runningKey) == 0 then
      -- Created with a member too long for a listpack, the set is a skiplist for good (see above).
      -- Longer than any zset-max-listpack-value a server would be given (the default is 64 bytes).
      local SKIPLIST_SEED = string.rep('threadmill skiplist seed ', 12)
      redis.call('ZADD', runningKey, 0, SKIPLIST_SEED, unpack(lease))
      redis.call('ZREM', runningKey, SKIPLIST_SEED)
    else
      redis.call('ZADD', runningKey, unpack(lease))
    end
    if heldCount > 0 then
      redis.call('SADD', KEYS[1], unpack(held))
    end
    if started then
      publishLive(ARGV[14], 'started', started)
    end
    -- A token already waiting serves as the chained one. Whichever question usually settles
    -- it in one call goes first: an idle worker's pickup (sent behind its wait) usually took
    -- the only task, so the queue is asked; a busy worker usually leaves a backlog whose
    -- tokens nobody popped, so the token list is.
    local wakeKey = KEYS[4 * q + 3]
    if #popped < 2 * max then
      redis.call('DEL', wakeKey)
    else
      local chain
      if sentBehindWait then
        chain = redis.call('ZCARD', queueKey) > 0 and redis.call('LLEN', wakeKey) == 0
      else
        chain = redis.call('LLEN', wakeKey) == 0 and redis.call('ZCARD', queueKey) > 0
      end
      if chain then
        redis.call('LPUSH', wakeKey, '1')
      end
    end
    return out
  end
end
if max > 0 then
  for q = 1, queueCount do
    redis.call('DEL', KEYS[4 * q + 3])
  end
end
out[#out + 1] = 0
out[#out + 1] = limitWait
return out
