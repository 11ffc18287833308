#!lua
--[[
  Store one queue's limits, and keep the paused set's ':limits' member in
  step with the limits hash: present while any queue there has a limit, so
  acquire.lua reads the hash only then (see its header). Seeding the
  configured limits stores only when the queue has none stored, so a change
  made at run time outlives restarts. A stored change gives the queue's
  ready tasks wake-up tokens (wakeReady), so idle
  consumers look again under the new limits at once. A queue whose rate
  limit is lifted or changed loses its window's starts only when it has no
  rate limit any more. The #!lua line makes Redis refuse the call before it
  runs when memory is over maxmemory.

  KEYS[1] paused queues (SET) of the alias, member = queue name or ':limits'
  KEYS[2] queue limits (HASH) field = queue name, value = 'concurrency max perMs'
  KEYS[3] ready queue (ZSET) of the queue
  KEYS[4] wake-up tokens (LIST) of the queue
  KEYS[5] rate window (ZSET) of the queue

  ARGV[1] queue name (string)
  ARGV[2] its limits, 'concurrency max perMs', '0 0 0' for none (string)
  ARGV[3] 1 to store only when the queue has no limits stored, else 0 (flag)
  ARGV[4] longest a wake-up list may grow (count)

  Returns how many wake-up tokens were pushed (count; 0 when nothing was stored)
  Errors OOM before anything runs when Redis is over maxmemory
]]

if ARGV[3] == '1' then
  if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then
    return 0
  end
else
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
end
if string.match(ARGV[2], '^%d+ 0 ') then
  redis.call('DEL', KEYS[5])
end
local limited = false
for _, text in ipairs(redis.call('HVALS', KEYS[2])) do
  if not string.match(text, '^0 0 ') then
    limited = true
    break
  end
end
if limited then
  redis.call('SADD', KEYS[1], ':limits')
else
  redis.call('SREM', KEYS[1], ':limits')
end
return wakeReady(KEYS[3], KEYS[4], tonumber(ARGV[4]))
