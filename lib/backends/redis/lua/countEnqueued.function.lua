--[[
  countEnqueued: RedisScripts prepends this file to the scripts that store
  new tasks (enqueue, enqueueUnique), so both count ingress and wake idle
  consumers alike. Ingress is counted per second of Redis's time in one hash
  per queue and hour; the hash gets its expiry when a second's field is new
  (its expiry is the same all hour). Ready tasks push wake-up tokens, at most
  `bound` per call; a list full because no consumer waits is trimmed back to
  the bound only once it has doubled, not at every enqueue.

  Parameters
  ingressKey   the queue's ingress hash of this hour (HASH)
  second       the second since the epoch (Redis's clock) the tasks are counted in
  expireAt     when the hour's hash expires (ms since epoch): the hour's end plus the result TTL
  ingress      how many tasks this call stored on the queue (count, may be 0)
  wakeKey      the queue's wake-up tokens (LIST)
  readied      how many of them are ready now (count, may be 0)
  bound        how many tokens a wake-up list keeps (count)

  Returns nothing
]]
local function countEnqueued(ingressKey, second, expireAt, ingress, wakeKey, readied, bound)
  if ingress > 0 and redis.call('HINCRBY', ingressKey, second, ingress) == ingress then
    redis.call('PEXPIREAT', ingressKey, expireAt)
  end
  if readied > 0 then
    local length
    if readied == 1 then
      length = redis.call('LPUSH', wakeKey, '1')
    else
      local tokens = {}
      for t = 1, math.min(readied, bound) do
        tokens[t] = '1'
      end
      length = redis.call('LPUSH', wakeKey, unpack(tokens))
    end
    if length > 2 * bound then
      redis.call('LTRIM', wakeKey, 0, bound - 1)
    end
  end
end
