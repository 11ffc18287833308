--[[
  Store finished tasks (many in one call), each only if it is still in its
  running set: once the reaper failed a task, a late acknowledge must change
  nothing, and the caller is told it was stale. A stored task gets its final
  record as a result string that expires after resultTtl, leaves the history
  set of its status, and its live hash is deleted. The reaper uses this same
  script with a deadline, so a task that was released and leased again after
  it looked is left alone, and pool recovery uses it with the dead pool's id
  for the same reason. A stored task leaves its pool's task set: the caller
  names the pool its tasks belong to (one SREM per call, nothing per task on
  the happy path), or asks for each task's pool to be read from its hash.

  Variadic KEYS: 4 per record, record r (from 1) uses
  KEYS[4r-3] running set (ZSET) of the task's queue
  KEYS[4r-2] task (HASH) deleted when stored
  KEYS[4r-1] result (STRING) the final record, expiring after resultTtl
  KEYS[4r] history (ZSET) successful or failed set of the queue, scored by finish time

  Derived keys: pool task set = ARGV[4] .. pool id (SET), same hash tag as KEYS

  ARGV[1] result TTL (ms)
  ARGV[2] latest lease deadline to accept (ms since epoch), or empty to accept any
  ARGV[3] pool id that must hold the task, or empty for any holder (string)
  ARGV[4] pool task set key prefix (string)
  ARGV[5] pool the tasks belong to: a pool id, empty for none, or * to read each task's (string)
  Then 3 per record, record r uses
  ARGV[3r+3] task id (string)
  ARGV[3r+4] final record (JSON)
  ARGV[3r+5] finish time (ms since epoch)

  Returns a list with one entry per record: 1 stored, 0 stale (not in the running set)
  Errors none
]]

local out = {}
local latest = tonumber(ARGV[2])
local requiredPool = ARGV[3]
local poolPrefix = ARGV[4]
local callerPool = ARGV[5]
local lookup = callerPool == '*' or requiredPool ~= ''
local leftPool = {}
for r = 1, #KEYS / 4 do
  local runningKey = KEYS[4 * r - 3]
  local taskKey = KEYS[4 * r - 2]
  local id = ARGV[3 * r + 3]
  local held = true
  if latest then
    local deadline = redis.call('ZSCORE', runningKey, id)
    held = deadline ~= false and tonumber(deadline) <= latest
  end
  local pool = false
  if lookup then
    -- pcall: a key of another type under our prefix must not abort the batch.
    pool = redis.pcall('HGET', taskKey, 'pool')
    if type(pool) ~= 'string' then
      pool = false
    end
  end
  if requiredPool ~= '' then
    held = held and pool == requiredPool
    -- Whatever happens to it, the id no longer belongs to the pool being recovered.
    redis.call('SREM', poolPrefix .. requiredPool, id)
  end
  if held and redis.call('ZREM', runningKey, id) == 1 then
    if pool then
      redis.call('SREM', poolPrefix .. pool, id)
    elseif callerPool ~= '' and not lookup then
      leftPool[#leftPool + 1] = id
    end
    redis.call('SET', KEYS[4 * r - 1], ARGV[3 * r + 4], 'PX', ARGV[1])
    redis.call('DEL', taskKey)
    redis.call('ZADD', KEYS[4 * r], ARGV[3 * r + 5], id)
    out[r] = 1
  else
    out[r] = 0
  end
end
if #leftPool > 0 then
  redis.call('SREM', poolPrefix .. callerPool, unpack(leftPool))
end
return out
