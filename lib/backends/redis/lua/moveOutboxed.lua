#!lua
--[[
  Store tasks the outbox relay moved from the app's Postgres, each at most
  once: enqueue.lua's step, run after this one in the same script (its
  body follows this file's), for the tasks not marked as moved. A relay
  that died between its move and deleting the outbox rows moves them
  again; each moved id leaves a mark that outlives the task's own
  retention for the mark window, so the repeat is refused here, in the
  same atomic step that would store it. A task is marked as it is kept
  (SET NX), and the arguments of the ones refused are taken out before
  enqueue.lua reads them; it stores the rest as a single enqueue of each
  would (`each`): an id stored already refuses only its own task. A reply
  lost with the connection needs no undo: the relay sends the call again,
  and the marks refuse what the first one stored.

  The move is fenced: it carries the generation its relay took with the
  lock, and is refused whole (an error reply, nothing written) when a newer
  relay has taken one since, as a relay frozen between reading its rows and
  moving them would otherwise store again tasks the newer one moved and
  deleted once their marks expired. A generation above the one recorded is
  recorded (a relay takes its own by INCR of KEYS[1], so only a Redis that
  lost the key sees one).

  KEYS[1] outbox relay generation (STRING) the newest a relay took (INCR, with the lock) or a
    move carried; taken out before enqueue.lua reads KEYS
  Then enqueue.lua's KEYS from its KEYS[1] (here KEYS[2]):
  KEYS[2] sequence (STRING) counter of enqueued tasks, the FIFO tie-break
  Variadic KEYS: then 4 per queue, queue q (from 1) uses
  KEYS[4q-1] ready queue (ZSET)
  KEYS[4q] deferred set (ZSET)
  KEYS[4q+1] ingress counts (HASH) of the queue, one per hour
  KEYS[4q+2] wake-up tokens (LIST) of the queue

  Derived keys: a moved task's mark = ARGV[1] .. id (STRING, expires after
  ARGV[2]), same hash tag as KEYS; enqueue.lua's own

  ARGV[1] moved-mark prefix (string)
  ARGV[2] mark window (ms): how long a mark refuses a repeated move
  ARGV[3] the moving relay's generation (integer, from 1)
  Then enqueue.lua's ARGV from its ARGV[1] (here ARGV[4]), with its ARGV[5] (each) 1:
  ARGV[9] pub/sub channel of the alias's live events (string), enqueue.lua's ARGV[6]

  Publishes as enqueue.lua does, for the tasks it stores: once on enqueue.lua's
  ARGV[6] (ARGV[9] here), the pub/sub channel of the alias's live events
  Publishes once on ARGV[9] when it stored tasks and someone listens:
  [enqueued, [[id, queue, name], ...] ] (see publishLive)

  Returns what enqueue.lua returns for the tasks not refused here (their
  positions counted among those); {0} when every task was moved before
  Errors "FENCED <generation> <newer>" when KEYS[1] holds a newer generation
  than ARGV[3]: nothing written, no mark made (the relay must not remove the
  marks of its tasks, which are the newer relay's). Otherwise as enqueue.lua's;
  a task marked here whose store then failed keeps its mark (the relay deletes
  the marks of a call that answered with such an error)
]]

do
  local generationKey = table.remove(KEYS, 1)
  local markPrefix = table.remove(ARGV, 1)
  local windowMs = table.remove(ARGV, 1)
  local generation = table.remove(ARGV, 1)
  local fenced = outboxFence(generationKey, generation)
  if fenced then
    return redis.error_reply(fenced)
  end
  local firstGroup = 8
  local last = #ARGV
  local read = firstGroup
  local write = firstGroup
  while read <= last do
    local q, priority, delay = ARGV[read], ARGV[read + 1], ARGV[read + 2]
    local count = tonumber(ARGV[read + 3])
    local head = write
    local kept = 0
    write = write + 4
    for i = read + 4, read + 2 + 2 * count, 2 do
      local id, data = ARGV[i], ARGV[i + 1]
      if redis.call('SET', markPrefix .. id, '1', 'NX', 'PX', windowMs) then
        ARGV[write] = id
        ARGV[write + 1] = data
        write = write + 2
        kept = kept + 1
      end
    end
    if kept > 0 then
      ARGV[head], ARGV[head + 1], ARGV[head + 2], ARGV[head + 3] = q, priority, delay, kept
    else
      write = head
    end
    read = read + 4 + 2 * count
  end
  for i = last, write, -1 do
    ARGV[i] = nil
  end
  -- Every task moved before: enqueue.lua is not for an empty call.
  if write == firstGroup then
    return { 0 }
  end
end
