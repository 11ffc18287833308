--[[
  outboxFence: RedisScripts prepends this file to the outbox relay's move
  scripts. A move carries the generation its relay took with the lock; a
  newer one recorded means another relay has taken the lock since, and the
  move is refused whole, before it writes anything. A generation above the
  one recorded is recorded (a relay takes its own by INCR of the key, so
  only a Redis that lost the key sees one).

  Parameters
  generationKey  the newest generation a relay took or a move carried (STRING)
  generation     the moving relay's generation (integer, from 1)

  Returns nil when the move may go on; else "FENCED <generation> <newer>",
  the text of the error reply the caller returns
]]
local function outboxFence(generationKey, generation)
  local newest = redis.call('GET', generationKey)
  if newest and tonumber(newest) > tonumber(generation) then
    return 'FENCED ' .. generation .. ' ' .. newest
  end
  if not newest or tonumber(newest) < tonumber(generation) then
    redis.call('SET', generationKey, generation)
  end
  return nil
end
