--[[
  storeFinished: the one place a finished task is stored. RedisScripts
  prepends this file (after callInSlices.function.lua and
  callSkippingWrongType.function.lua, which it uses) to every script that
  names it (acknowledge.lua, and acquire.lua, which stores a worker's
  finished tasks in the same call that leases its next ones, so a busy slot
  costs one round trip per task).

  A task is stored only if it is still in its running set: once the reaper
  failed a task, a late acknowledge must change nothing, and the caller is
  told it was stale. A stored task keeps its hash: the outcome (what the
  worker changed, or the whole record when the enqueued data could not be
  read) is written beside the enqueued data, so the record is not sent or
  stored twice; the hash then expires after resultTtl, and the task enters
  the history set of its status. A key of another type in the hash's place
  is replaced, so the task's outcome is still stored. The reaper passes a deadline, so a task that was
  released and leased again after it looked is left alone, and pool recovery
  passes the dead pool's id for the same reason. A stored task leaves its
  pool's task set: the caller names the pool its tasks belong to (one SREM
  per call, nothing per task on the happy path), or asks for each task's pool
  to be read from its hash. A record not held whose stored outcome is this
  very one was stored by an earlier call whose reply was lost (the same
  attempt acknowledged twice), and is reported so, not as stale. Keys of
  another type are skipped or replaced through callSkippingWrongType, which
  raises every other error.

  Records come in groups that share a running set, a history set and a task
  name, so a record costs two arguments (id, outcome) and its keys are
  derived: task hash = o.taskPrefix .. id, pool task set = o.poolPrefix ..
  pool id, all under the hash tag of the declared keys.

  Every task stored final is announced on o.channel (the alias's feed of
  finished tasks) while some process listens there, in ONE PUBLISH per call
  whatever the batch holds, and none when nothing was stored: a JSON list
  with one entry per group that
  stored any, a pair of its label (the group's JSON [queue, status, task
  name] as the caller wrote it) and the list of the ids it stored. Publishing here, in
  the step that stores, means no finish goes unannounced, whoever stored it
  (a worker, the reaper, a pool recovery). A listener marks the channel as
  listened to by a STRING under the channel's own name (keys and channels
  are apart in Redis), expiring unless renewed (markListening-1.lua): one
  EXISTS per call, and while nobody listens no message is built or sent.

  Parameters
  firstKey   index in KEYS of the first group's running set (ZSET); its history
             set (ZSET) follows, then the next group's pair, to the end of KEYS
  firstArg   index in ARGV of the first group's label (JSON [queue, status,
             task name]), which its record count follows, then that many
             (task id, outcome JSON) pairs, then the next group's label
  o          resultTtl (ms), latest (lease deadline to accept, or nil for any),
             requiredPool ('' for any holder), poolPrefix, callerPool (a pool
             id, '' for none, or * to read each task's), taskPrefix,
             now (history score: Redis's time, ms since epoch, as text),
             channel (pub/sub channel of the alias's finished tasks, and the
             name of its listener mark, a STRING of the same hash tag),
             heard (false when the caller already knows no mark exists, as
             acquire.lua does from one EXISTS of both its channels' marks:
             then no EXISTS is sent here; nil to ask)

  Returns a list with one entry per record, in order: 1 stored, 0 stale,
  2 already stored (not held, and its stored outcome is this very one)
]]
local function storeOutcome(taskKey, outcome, ttl)
  -- A key of another type under our prefix is replaced, and must not abort the batch.
  local _, wrongType = callSkippingWrongType('HSET', taskKey, 'outcome', outcome)
  if wrongType then
    redis.call('DEL', taskKey)
    redis.call('HSET', taskKey, 'outcome', outcome)
  end
  redis.call('PEXPIRE', taskKey, ttl)
end

-- 2 when the task's stored outcome is this very one (stored before, by the same attempt), else 0.
local function notHeld(taskKey, outcome)
  return callSkippingWrongType('HGET', taskKey, 'outcome') == outcome and 2 or 0
end

local function storeFinished(firstKey, firstArg, o)
  local out = {}
  local lookup = o.callerPool == '*' or o.requiredPool ~= ''
  -- The worker's path (no guard, no per-task pool): one ZMSCORE, ZREM and
  -- ZADD per group instead of one of each per task (a single task is
  -- cheaper one by one: ZREM tells whether it was held).
  local batched = not o.latest and not lookup
  local leftPool = {}
  -- Nil while nobody listens: no message is then built.
  local events = o.heard ~= false and redis.call('EXISTS', o.channel) == 1 and {} or nil
  local a = firstArg
  for k = firstKey, #KEYS - 1, 2 do
    local runningKey = KEYS[k]
    local historyKey = KEYS[k + 1]
    local label = ARGV[a]
    a = a + 1
    local count = tonumber(ARGV[a])
    if batched and count > 1 then
      local ids = {}
      for r = 1, count do
        ids[r] = ARGV[a + 2 * r - 1]
      end
      local deadlines = {}
      for first = 1, count, 1000 do
        local slice = redis.call('ZMSCORE', runningKey, unpack(ids, first, math.min(first + 999, count)))
        for i = 1, #slice do
          deadlines[first + i - 1] = slice[i]
        end
      end
      local held, history, seen = {}, {}, {}
      local heldCount = 0
      local n = #out
      for r = 1, count do
        local id = ids[r]
        n = n + 1
        -- An id twice in one call is stored once, the repeat reported as it would be later.
        if deadlines[r] and not seen[id] then
          seen[id] = true
          heldCount = heldCount + 1
          held[heldCount] = id
          history[2 * heldCount - 1] = o.now
          history[2 * heldCount] = id
          storeOutcome(o.taskPrefix .. id, ARGV[a + 2 * r], o.resultTtl)
          out[n] = 1
        else
          out[n] = notHeld(o.taskPrefix .. id, ARGV[a + 2 * r])
        end
      end
      if #held > 0 then
        if events then
          events[#events + 1] = '[' .. label .. ',' .. cjson.encode(held) .. ']'
        end
        callInSlices('ZREM', runningKey, held)
        callInSlices('ZADD', historyKey, history)
        if o.callerPool ~= '' then
          for i = 1, #held do
            leftPool[#leftPool + 1] = held[i]
          end
        end
      end
    else
      local storedIds = {}
      for r = 1, count do
        local id = ARGV[a + 2 * r - 1]
        local taskKey = o.taskPrefix .. id
        local held = true
        if o.latest then
          local deadline = redis.call('ZSCORE', runningKey, id)
          held = deadline ~= false and tonumber(deadline) <= o.latest
        end
        local pool = false
        if lookup then
          -- A key of another type under our prefix must not abort the batch: it has no pool.
          pool = callSkippingWrongType('HGET', taskKey, 'pool')
          if type(pool) ~= 'string' then
            pool = false
          end
        end
        if o.requiredPool ~= '' then
          held = held and pool == o.requiredPool
          -- Whatever happens to it, the id no longer belongs to the pool being recovered.
          redis.call('SREM', o.poolPrefix .. o.requiredPool, id)
        end
        if held and redis.call('ZREM', runningKey, id) == 1 then
          if pool then
            redis.call('SREM', o.poolPrefix .. pool, id)
          elseif o.callerPool ~= '' and not lookup then
            leftPool[#leftPool + 1] = id
          end
          storeOutcome(taskKey, ARGV[a + 2 * r], o.resultTtl)
          redis.call('ZADD', historyKey, o.now, id)
          storedIds[#storedIds + 1] = id
          out[#out + 1] = 1
        else
          out[#out + 1] = notHeld(taskKey, ARGV[a + 2 * r])
        end
      end
      if events and #storedIds > 0 then
        events[#events + 1] = '[' .. label .. ',' .. cjson.encode(storedIds) .. ']'
      end
    end
    a = a + 2 * count + 1
  end
  if #leftPool > 0 then
    callInSlices('SREM', o.poolPrefix .. o.callerPool, leftPool)
  end
  if events and #events > 0 then
    redis.call('PUBLISH', o.channel, '[' .. table.concat(events, ',') .. ']')
  end
  return out
end
