#!lua flags=allow-oom
--[[
  Give leased tasks back unfinished: to their ready queue at their original
  score (kept in their hash at enqueue), so they keep their place in line,
  out of their worker pool's task set. Only a task still in its running set
  goes back. A task that ran (a shutdown interrupted it) keeps its attempt
  history. A task that never started (its lease was never received, or
  arrived after an urgent stop) goes back as if never leased: only while its
  workers list is still that lease's, which is then replaced by the list
  before the lease (no attempt counted; a task never leased before loses its
  start time too): the two mirror StoreRules.released and unleased
  (lib/lifecycle/unleased.ts), pinned by the release and unlease contract cases. A wake-up token per queue lets an idle consumer take it at
  once. It runs when Redis is over maxmemory (allow-oom): it only moves
  tasks back and bounds its tokens, so a pool stopping on a full Redis
  still gives back what it holds instead of leaving it to the reaper.

  Variadic KEYS: 4 per record, record r (from 1) uses
  KEYS[4r-3] running set (ZSET) of the task's queue
  KEYS[4r-2] ready queue (ZSET) of the task's queue
  KEYS[4r-1] task (HASH) its status is set back to ready; its score field is the ready score
  KEYS[4r] wake-up tokens (LIST) of the task's queue

  Derived keys: pool task set = ARGV[3] .. pool id (SET), same hash tag as KEYS

  ARGV[1] ready status word (string)
  ARGV[2] longest a wake-up list may grow (count)
  ARGV[3] pool task set key prefix (string)
  Then 4 per record, record r uses
  ARGV[4r] task id (string)
  ARGV[4r+1] ready score to use when the hash is gone (number)
  ARGV[4r+2] workers list (JSON) the lease must still have, or empty for a task that ran (any)
  ARGV[4r+3] workers list (JSON) to put back in its place; used only with ARGV[4r+2]

  Returns how many tasks went back (count)
  Errors none for memory (allow-oom); any error reply but WRONGTYPE of a task hash command (callSkippingWrongType)
]]

local released = 0
local woken = {}
for r = 1, #KEYS / 4 do
  local id = ARGV[4 * r]
  local expected = ARGV[4 * r + 2]
  local fields = false
  local held = redis.call('ZSCORE', KEYS[4 * r - 3], id)
  if held then
    -- A key of another type in the hash's place reads as no hash: the task still goes back.
    fields = callSkippingWrongType('HMGET', KEYS[4 * r - 1], 'score', 'pool', 'workers')
    if expected ~= '' and not (fields and fields[3] == expected) then
      -- Leased again since (or unreadable): not the lease this caller means.
      held = false
    end
  end
  if held then
    redis.call('ZREM', KEYS[4 * r - 3], id)
    local score = ARGV[4 * r + 1]
    if fields and fields[1] then
      score = fields[1]
      redis.call('HSET', KEYS[4 * r - 1], 'status', ARGV[1])
      if expected ~= '' then
        local before = ARGV[4 * r + 3]
        redis.call('HSET', KEYS[4 * r - 1], 'workers', before)
        if before == '[]' then
          redis.call('HDEL', KEYS[4 * r - 1], 'startedAt', 'lastAttemptedAt')
        end
      end
      if fields[2] then
        redis.call('HDEL', KEYS[4 * r - 1], 'pool')
        redis.call('SREM', ARGV[3] .. fields[2], id)
      end
    end
    redis.call('ZADD', KEYS[4 * r - 2], score, id)
    released = released + 1
    local wakeKey = KEYS[4 * r]
    if not woken[wakeKey] then
      woken[wakeKey] = true
      if redis.call('LPUSH', wakeKey, '1') > tonumber(ARGV[2]) then
        redis.call('LTRIM', wakeKey, 0, tonumber(ARGV[2]) - 1)
      end
    end
  end
end
return released
