#!lua flags=allow-oom
--[[
  Resume a paused queue: it leaves the paused set, and its waiting tasks get
  wake-up tokens as enqueue gives them (one per ready task, bounded), so idle
  consumers blocked on the queue's token list take them at once. While the
  queue was paused, acquire.lua dropped its tokens whenever it found nothing
  to lease, so without these the tasks would wait for the next enqueue or
  for a consumer's wait to time out. Both happen in one step, so no consumer
  sees the queue resumed without its tokens. A queue that was not paused
  gets no tokens: its tasks already had theirs (wakeReady). It runs when
  Redis is over maxmemory (allow-oom): its tokens are bounded, and a queue
  paused on a full Redis must be resumable, or its tasks could never drain.

  KEYS[1] paused queues (SET) of the alias, member = queue name
  KEYS[2] ready queue (ZSET) of the queue
  KEYS[3] wake-up tokens (LIST) of the queue

  ARGV[1] queue name (string)
  ARGV[2] longest a wake-up list may grow (count)

  Returns how many wake-up tokens were pushed (count)
  Errors none (allow-oom)
]]

if redis.call('SREM', KEYS[1], ARGV[1]) == 0 then
  return 0
end
return wakeReady(KEYS[2], KEYS[3], tonumber(ARGV[2]))
