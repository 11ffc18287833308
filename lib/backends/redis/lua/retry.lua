#!lua flags=allow-oom
--[[
  Send failed attempts back for another one (the retry decision and the new
  record were made by the caller, which also builds the error text). Only a
  task still in its running set goes back: to its deferred set, due at
  Redis's time (storeClock) plus the wait the caller measured on its own
  clock (so a worker whose clock is off still waits exactly its backoff),
  or straight to its ready queue at its original score when there is no
  wait left, with a wake-up token. Its data is replaced (the errors grew and
  runAfter moved), its worker ids kept so its attempts still count, its
  startedAt kept (the start of its first attempt, which acquire leaves
  alone), its progress kept (the failed attempt's, shown until the next
  attempt starts), a cancel asked during the attempt kept (the next lease
  ends it CANCELLED), and its hash has no expiry, however long it waits. The reaper passes a deadline and pool recovery
  a pool id, so a task leased again by someone else meanwhile is left alone.
  A record not held whose hash already holds this very data was sent back
  by an earlier call whose reply was lost, and is reported so. It runs
  when Redis is over maxmemory (allow-oom): a failed attempt of a task a
  full Redis drains must still go back for its next one; it adds only the
  error text of the attempt, bounded by the task's retries. The #!lua line
  also keeps it whole (a script without flags on a Redis refusing writes
  would delete a task's hash and then have the write of its new data refused).

  Variadic KEYS: 5 per record, record r (from 1) uses
  KEYS[5r-4] running set (ZSET) of the task's queue
  KEYS[5r-3] task (HASH) data, status and workers replaced; score, startedAt, progress and
    cancel kept
  KEYS[5r-2] deferred set (ZSET) of the task's queue, score = due time (ms, Redis's clock)
  KEYS[5r-1] ready queue (ZSET) of the task's queue
  KEYS[5r] wake-up tokens (LIST) of the task's queue

  Derived keys: pool task set = ARGV[4] .. pool id (SET), same hash tag as KEYS

  ARGV[1] ready status word (string)
  ARGV[2] latest lease deadline to accept (ms since epoch, Redis's clock), or empty to accept any
  ARGV[3] pool id that must hold the task, or empty for any holder (string)
  ARGV[4] pool task set key prefix (string)
  ARGV[5] longest a wake-up list may grow (count)
  Then 5 per record, record r uses
  ARGV[5r+1] task id (string)
  ARGV[5r+2] task data (JSON, the live encoding)
  ARGV[5r+3] worker ids (JSON array)
  ARGV[5r+4] wait before the next attempt (ms from when Redis runs this; 0 when due now)
  ARGV[5r+5] ready score to use when the hash has none (number)

  Returns a list with one entry per record: 1 sent back, 0 stale (not held),
  2 already sent back (not held, and its hash holds this very data)
  Errors none for memory (allow-oom); any error reply but WRONGTYPE of a task hash command (callSkippingWrongType)
]]

local out = {}
local latest = tonumber(ARGV[2])
local requiredPool = ARGV[3]
local poolPrefix = ARGV[4]
local bound = tonumber(ARGV[5])
local woken = {}
local now = nil
for r = 1, #KEYS / 5 do
  local runningKey = KEYS[5 * r - 4]
  local taskKey = KEYS[5 * r - 3]
  local id = ARGV[5 * r + 1]
  local held = true
  if latest then
    local deadline = redis.call('ZSCORE', runningKey, id)
    held = deadline ~= false and tonumber(deadline) <= latest
  end
  -- A key of another type under our prefix must not abort the batch: it is replaced below.
  local pool = callSkippingWrongType('HGET', taskKey, 'pool')
  if type(pool) ~= 'string' then
    pool = false
  end
  if requiredPool ~= '' then
    held = held and pool == requiredPool
    -- Whatever happens to it, the id no longer belongs to the pool being recovered.
    redis.call('SREM', poolPrefix .. requiredPool, id)
  end
  if held and redis.call('ZREM', runningKey, id) == 1 then
    if pool then
      redis.call('SREM', poolPrefix .. pool, id)
    end
    local kept = callSkippingWrongType('HMGET', taskKey, 'score', 'startedAt', 'progress', 'cancel')
    local score = kept and kept[1] or ARGV[5 * r + 5]
    redis.call('DEL', taskKey)
    redis.call('HSET', taskKey, 'data', ARGV[5 * r + 2], 'status', ARGV[1],
      'workers', ARGV[5 * r + 3], 'score', score)
    if kept and kept[2] then
      redis.call('HSET', taskKey, 'startedAt', kept[2])
    end
    if kept and kept[3] then
      redis.call('HSET', taskKey, 'progress', kept[3])
    end
    if kept and kept[4] then
      -- A cancel asked during the attempt outlives it: the next lease ends the task CANCELLED.
      redis.call('HSET', taskKey, 'cancel', kept[4])
    end
    local wait = tonumber(ARGV[5 * r + 4])
    if wait > 0 then
      now = now or storeClock()
      redis.call('ZADD', KEYS[5 * r - 2], now + wait, id)
    else
      redis.call('ZADD', KEYS[5 * r - 1], score, id)
      local wakeKey = KEYS[5 * r]
      if not woken[wakeKey] then
        woken[wakeKey] = true
        if redis.call('LPUSH', wakeKey, '1') > bound then
          redis.call('LTRIM', wakeKey, 0, bound - 1)
        end
      end
    end
    out[r] = 1
  elseif callSkippingWrongType('HGET', taskKey, 'data') == ARGV[5 * r + 2] then
    out[r] = 2
  else
    out[r] = 0
  end
end
return out
