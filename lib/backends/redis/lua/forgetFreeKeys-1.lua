#!lua flags=allow-oom
--[[
  Forget unique keys that no longer hold: an index field whose task is
  final (its hash has an outcome) or gone. enqueueUnique reads such a field
  as free at once, so this only keeps the index as large as the keys that
  hold, without a call per finished task on the acknowledge path. One call
  looks at one HSCAN page from the cursor the caller kept from its last
  call, so its cost is bounded however large the index grew. A window needs
  nothing here: its STRING expires by itself. It only deletes, so it may
  run when Redis is over maxmemory (allow-oom), where freeing memory is
  what is needed, as trimFinished does.

  KEYS[1] unique key index (HASH) field = unique key, value = holder id

  Derived keys: task hash = ARGV[1] .. id (HASH), same hash tag as KEYS

  ARGV[1] task key prefix (string)
  ARGV[2] where the scan goes on (HSCAN cursor; 0 = from the start)
  ARGV[3] how many fields one call looks at (count, a hint to HSCAN)

  Returns {how many keys were forgotten (count), the next cursor (0 once the index was walked)}
  Errors any error reply but WRONGTYPE of a task hash command (callSkippingWrongType)
]]

local page = redis.call('HSCAN', KEYS[1], ARGV[2], 'COUNT', ARGV[3])
local fields = page[2]
local free = {}
for i = 1, #fields, 2 do
  local state = callSkippingWrongType('HMGET', ARGV[1] .. fields[i + 1], 'data', 'outcome')
  if state and (not state[1] or state[2]) then
    free[#free + 1] = fields[i]
  end
end
if #free > 0 then
  redis.call('HDEL', KEYS[1], unpack(free))
end
return { #free, page[1] }
