#!lua
--[[
  Store tasks with unique keys the outbox relay moved from the app's
  Postgres, each at most once, and record in each one's moved mark what its
  key decided: enqueueUnique.lua decides them (its body, called here as
  continued(), in the same atomic step), so the outcome is the one a direct
  unique enqueue would have had at this moment, and the enqueue's handle,
  which waits for the mark, learns it from there. A task is marked as it is
  kept (SET NX, an empty value until decided); one marked before (a relay
  that died between its move and deleting the rows moves them again) is
  taken out of the arguments before enqueueUnique.lua reads them, so its
  first outcome stays. The mark's value, once decided, is the id that holds
  the task: its own when it took the key (or when its id was stored
  already), the holder's when the key was held (or replaced, in debounce
  mode), the holder's too when a window holds the key whose task is gone.

  The move is fenced as moveOutboxed.lua's: refused whole (an error reply,
  nothing written) when a newer relay has taken a generation since this
  one's relay took ARGV[3]; a generation above the one recorded is recorded
  (a relay takes its own by INCR of KEYS[1], so only a Redis that lost the
  key sees one).

  KEYS[1] outbox relay generation (STRING) the newest a relay took (INCR, with the lock) or a
    move carried; taken out before enqueueUnique.lua reads KEYS
  Then enqueueUnique.lua's KEYS from its KEYS[1] (here KEYS[2]):
  KEYS[2] sequence (STRING) counter of enqueued tasks, the FIFO tie-break
  KEYS[3] unique key index (HASH) field = unique key, value = id of the task that took it
  Variadic KEYS: then 4 per queue, queue q (from 1) uses
  KEYS[4q] ready queue (ZSET)
  KEYS[4q+1] deferred set (ZSET)
  KEYS[4q+2] ingress counts (HASH) of the queue, one per hour
  KEYS[4q+3] wake-up tokens (LIST) of the queue

  Derived keys: a moved task's mark = ARGV[1] .. id (STRING, value = the id
  holding it once decided, expires after ARGV[2]), same hash tag as KEYS;
  enqueueUnique.lua's own

  ARGV[1] moved-mark prefix (string)
  ARGV[2] mark window (ms): how long a mark refuses a repeated move
  ARGV[3] the moving relay's generation (integer, from 1)
  Then enqueueUnique.lua's ARGV from its ARGV[1] (here ARGV[4]), with its ARGV[7] (each) 1:
  ARGV[11] pub/sub channel of the alias's live events (string), enqueueUnique.lua's ARGV[8]

  Publishes as enqueueUnique.lua does, for the tasks it makes (not a holder returned or replaced)
  Publishes once on ARGV[11] when it made tasks and someone listens:
  [enqueued, [[id, queue, name], ...] ] (see publishLive)

  Returns what enqueueUnique.lua returns with each for the tasks not
  refused here; {0} when every task was moved before
  Errors "FENCED <generation> <newer>" when KEYS[1] holds a newer generation
  than ARGV[3]: nothing written, no mark made (the relay must not remove the
  marks of its tasks, which are the newer relay's). Otherwise as
  enqueueUnique.lua's; marks made here whose store then failed stay (the
  relay deletes the marks of a call that answered with such an error)
]]

local generationKey = table.remove(KEYS, 1)
local markPrefix = table.remove(ARGV, 1)
local windowMs = table.remove(ARGV, 1)
local generation = table.remove(ARGV, 1)
local fenced = outboxFence(generationKey, generation)
if fenced then
  return redis.error_reply(fenced)
end
local FIRST, PER = 10, 8
local last = #ARGV
local write = FIRST
local ids = {}
for read = FIRST, last, PER do
  local id = ARGV[read + 3]
  if redis.call('SET', markPrefix .. id, '', 'NX', 'PX', windowMs) then
    for i = 0, PER - 1 do
      ARGV[write + i] = ARGV[read + i]
    end
    write = write + PER
    ids[#ids + 1] = id
  end
end
for i = last, write, -1 do
  ARGV[i] = nil
end
-- Every task moved before: enqueueUnique.lua is not for an empty call.
if #ids == 0 then
  return { 0 }
end

local reply = continued()
-- The reply's entries per record (enqueueUnique.lua's header): kind, then its own fields.
local i = 2
for r = 1, #ids do
  local kind, holder = reply[i], ids[r]
  if kind == 0 then
    i = i + 1
  elseif kind == 1 then
    holder = reply[i + 1]
    i = i + 8
  elseif kind == 2 then
    holder = reply[i + 1]
    i = i + 2
  elseif kind == 3 then
    holder = redis.call('GET', markPrefix .. ids[reply[i + 1]])
    i = i + 2
  elseif kind == 4 then
    i = i + 7
  else
    holder = reply[i + 2]
    i = i + 4
  end
  redis.call('SET', markPrefix .. ids[r], holder, 'XX', 'KEEPTTL')
end
return reply
