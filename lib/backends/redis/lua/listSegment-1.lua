#!lua flags=no-writes
--[[
  One page of a queue's segment for an operator (listTasks), from where the
  previous page stopped. The cursor is an entry's score and member, never a
  rank, so a page starts where the last one ended however many entries came
  or went before it. Its rank is found in O(log n): the member's own ZRANK
  while it is still there at that score, else a binary search by rank among
  the entries of that score, members compared byte by byte as Redis orders
  them (Lua's own string comparison follows the server's locale). At most
  ARGV[4] entries are examined from there, so a page costs the same deep in
  a million tasks as at their head. With a name (ARGV[8]) an entry's data
  is read to compare its start, and only entries that match are returned
  whole; the caller checks each record again. Reads only (no-writes).

  KEYS[1] the segment (ZSET) ready, running or deferred ids, or a history set of finished ids

  Derived keys: task hash = ARGV[7] .. id (HASH), same hash tag as KEYS

  ARGV[1] -1 to list highest score first (history, newest first), 1 for lowest first
  ARGV[2] score of the entry the previous page stopped at, or empty to start at the first (number)
  ARGV[3] member of that entry (string)
  ARGV[4] most entries to examine (count)
  ARGV[5] most entries to return (count)
  ARGV[6] oldest score listed, as an age (ms before Redis's time), or empty for no bound
  ARGV[7] task hash key prefix (string)
  ARGV[8] text the data field of a returned entry starts with, or empty to return every entry
  ARGV[9] and after: the task hash fields to return (strings)

  Returns {1 when the segment has no entry after the last one examined else 0, that entry's member and score (false when none was examined), then per returned entry its member, score and the values of ARGV[9] and after (false when absent)}
  Errors WRONGTYPE when a key holds another type
]]

local key = KEYS[1]
local descending = ARGV[1] == '-1'
local examine = tonumber(ARGV[4])
local wanted = tonumber(ARGV[5])
local oldest = nil
if ARGV[6] ~= '' then
  oldest = storeClock() - tonumber(ARGV[6])
end
local prefix = ARGV[7]
local named = ARGV[8]
local fields = {}
for i = 9, #ARGV do
  fields[#fields + 1] = ARGV[i]
end

-- Whether a sorts before b, byte by byte (memcmp order, as Redis compares members).
local function bytesBefore(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x < y
    end
  end
  return #a < #b
end

-- How many entries sort before (score, member), and whether that entry is there.
local function ranksBelow(score, member)
  local stored = redis.call('ZSCORE', key, member)
  if stored and tonumber(stored) == tonumber(score) then
    return redis.call('ZRANK', key, member), true
  end
  local low = redis.call('ZCOUNT', key, '-inf', '(' .. score)
  local high = low + redis.call('ZCOUNT', key, score, score)
  while low < high do
    local mid = math.floor((low + high) / 2)
    if bytesBefore(member, redis.call('ZRANGE', key, mid, mid)[1]) then
      high = mid
    else
      low = mid + 1
    end
  end
  return low, false
end

-- Ranks first..last hold the examined entries and one more, which only tells that the segment goes on.
local first, last
if descending then
  local below = redis.call('ZCARD', key)
  if ARGV[2] ~= '' then
    below = ranksBelow(ARGV[2], ARGV[3])
  end
  first, last = math.max(0, below - examine - 1), below - 1
else
  first = 0
  if ARGV[2] ~= '' then
    local below, present = ranksBelow(ARGV[2], ARGV[3])
    first = present and below + 1 or below
  end
  last = first + examine
end
local entries = {}
if last >= first then
  entries = redis.call('ZRANGE', key, first, last, 'WITHSCORES')
end

local count = #entries / 2
local reply = { 1, false, false }
local examined, returned = 0, 0
for k = 1, count do
  local i = descending and (count - k + 1) or k
  local member, score = entries[2 * i - 1], entries[2 * i]
  if examined == examine then
    reply[1] = 0
    break
  end
  if oldest and tonumber(score) < oldest then
    break
  end
  examined = examined + 1
  reply[2], reply[3] = member, score
  local matches = true
  if named ~= '' then
    local data = redis.call('HGET', prefix .. member, 'data')
    matches = data and string.sub(data, 1, #named) == named
  end
  if matches then
    local values = redis.call('HMGET', prefix .. member, unpack(fields))
    reply[#reply + 1] = member
    reply[#reply + 1] = score
    for f = 1, #fields do
      reply[#reply + 1] = values[f]
    end
    returned = returned + 1
    if returned == wanted then
      if k < count then
        reply[1] = 0
      end
      break
    end
  end
end
return reply
