#!lua
--[[
  Forget unique keys that no longer hold: an index field whose task is
  final (its hash has an outcome) or gone. enqueueUnique reads such a field
  as free at once, so this only keeps the index as large as the keys that
  hold, without a call per finished task on the acknowledge path. One pass
  looks at one HSCAN page from where the last pass stopped (the cursor is
  kept in a STRING), so its cost is bounded however large the index grew.
  A window needs nothing here: its STRING expires by itself.

  KEYS[1] unique key index (HASH) field = unique key, value = holder id
  KEYS[2] index scan cursor (STRING) where the next pass goes on; absent = from the start

  Derived keys: task hash = ARGV[1] .. id (HASH), same hash tag as KEYS

  ARGV[1] task key prefix (string)
  ARGV[2] how many fields one pass looks at (count, a hint to HSCAN)

  Returns how many keys were forgotten (count)
  Errors OOM before anything runs when Redis is over maxmemory; any error
  reply but WRONGTYPE of a task hash command (callSkippingWrongType)
]]

local page = redis.call('HSCAN', KEYS[1], redis.call('GET', KEYS[2]) or '0', 'COUNT', ARGV[2])
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
if page[1] == '0' then
  redis.call('DEL', KEYS[2])
else
  redis.call('SET', KEYS[2], page[1])
end
return #free
