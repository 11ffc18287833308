#!lua flags=no-writes
--[[
  One schedule, or every one, as stored: each entry with its cursor and last
  tick, read in one step so a list never pairs an entry with another
  moment's cursor. It writes nothing (no-writes).

  KEYS[1] schedule cursors (ZSET) member = schedule id, score = next tick (ms, Redis's clock)
  KEYS[2] schedule entries (HASH) field = schedule id, value = entry JSON
  KEYS[3] schedule last ticks (HASH) field = schedule id, value = last tick JSON

  ARGV[1] schedule id (string), or empty for every schedule

  Returns per schedule: id, entry, next tick (ms) or false, last tick or false
  Errors WRONGTYPE when a key holds another type
]]

local entries
if ARGV[1] == '' then
  entries = redis.call('HGETALL', KEYS[2])
else
  local entry = redis.call('HGET', KEYS[2], ARGV[1])
  entries = entry and { ARGV[1], entry } or {}
end
local reply = {}
for i = 1, #entries, 2 do
  local id = entries[i]
  reply[#reply + 1] = id
  reply[#reply + 1] = entries[i + 1]
  reply[#reply + 1] = redis.call('ZSCORE', KEYS[1], id)
  reply[#reply + 1] = redis.call('HGET', KEYS[3], id)
end
return reply
