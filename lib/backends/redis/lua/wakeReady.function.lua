--[[
  wakeReady: RedisScripts prepends this file to the scripts that make a
  queue's waiting tasks takeable again without storing any (a resume, a
  change of limits). Each ready task gets a wake-up token, as enqueue gives
  them, at most `bound`, so idle consumers blocked on the queue's token list
  look again at once instead of at the end of their wait.

  Parameters
  readyKey  the queue's ready tasks (ZSET)
  wakeKey   the queue's wake-up tokens (LIST)
  bound     how many tokens a wake-up list keeps (count)

  Returns how many tokens were pushed (count)
]]
local function wakeReady(readyKey, wakeKey, bound)
  local ready = math.min(redis.call('ZCARD', readyKey), bound)
  if ready == 0 then
    return 0
  end
  local tokens = {}
  for t = 1, ready do
    tokens[t] = '1'
  end
  if redis.call('LPUSH', wakeKey, unpack(tokens)) > bound then
    redis.call('LTRIM', wakeKey, 0, bound - 1)
  end
  return ready
end
