#!lua flags=allow-oom
--[[
  Delete a final task by hand, in one step: its hash, its entry in the
  history set of its status, and its unique key's index field when that
  still names the task (a window STRING runs out on its own). Only while
  its `outcome` field is still the one the caller read, so a task retried
  in between (no longer final) is left alone. It only deletes, so it runs
  when Redis is over maxmemory too (allow-oom), where an operator removing
  results is freeing memory.

  KEYS[1] task hash (HASH)
  KEYS[2] history (ZSET) set of the task's final status in its queue
  KEYS[3] unique key index (HASH) field = unique key, value = id of the task that took it

  ARGV[1] task id (string)
  ARGV[2] the task's `outcome` field as the caller read it (JSON)
  ARGV[3] the task's unique key, empty when it has none (string)

  Returns 1 removed, 0 changed or gone since the caller read it (nothing changed)
  Errors none (allow-oom)
]]

if redis.call('TYPE', KEYS[1]).ok ~= 'hash' or redis.call('HGET', KEYS[1], 'outcome') ~= ARGV[2] then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[3] ~= '' and redis.call('HGET', KEYS[3], ARGV[3]) == ARGV[1] then
  redis.call('HDEL', KEYS[3], ARGV[3])
end
return 1
