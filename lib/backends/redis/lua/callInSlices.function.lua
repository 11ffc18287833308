--[[
  callInSlices: RedisScripts prepends this file to every script that names
  it. Lua's unpack has a bounded stack, so a command over a long list (a
  bulk enqueue's ZADD, a batch's DEL) goes to Redis in slices of 1000
  elements; a list of pairs stays whole, since 1000 is even.

  Parameters
  command    the Redis command
  key        its first argument (a key), or false for a command that takes only the list
  list       the remaining arguments

  Returns nothing
]]
local function callInSlices(command, key, list)
  for first = 1, #list, 1000 do
    local last = math.min(first + 999, #list)
    if key then
      redis.call(command, key, unpack(list, first, last))
    else
      redis.call(command, unpack(list, first, last))
    end
  end
end
