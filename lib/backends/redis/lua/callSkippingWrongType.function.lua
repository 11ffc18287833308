--[[
  callSkippingWrongType: RedisScripts prepends this file to every script
  that names it. A key under our prefix that holds another type (someone
  else wrote it) must not abort a batch halfway, so a command on it is
  skipped. Every other error reply is raised again: a reply Redis refused
  is never read as a value (an out-of-memory refusal read as "no data" or
  "already there" is how task data would be lost or an enqueue misreported).

  Parameters
  ...        the Redis command and its arguments, as redis.call takes them

  Returns the command's reply and false, or false and true when the key holds another type
]]
local function callSkippingWrongType(...)
  local reply = redis.pcall(...)
  if type(reply) == 'table' and reply.err then
    if string.sub(reply.err, 1, 10) == 'WRONGTYPE ' then
      return false, true
    end
    error(reply)
  end
  return reply, false
end
