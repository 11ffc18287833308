--[[
  storeClock: RedisScripts prepends this file to every script that names
  it. Every time one process writes and another compares (a lease deadline,
  a pool's heartbeat deadline, a deferred task's due time, a history score)
  is read from Redis's clock, at the moment Redis runs the script, never
  from the clock of the host that sent it: hosts' clocks differ (by minutes
  on a badly kept one), and a pool whose clock runs ahead would otherwise
  take the leases and heartbeats of every other pool for lapsed, and one
  whose clock runs behind would run deferred tasks early. A time a caller
  sets (a runAfter, a backoff) comes as a delay measured on its own clock
  and is added to this one.

  Parameters
  (none)

  Returns Redis's time in whole milliseconds since the epoch (number), and
  the same as text (string): a number handed to redis.call is formatted again
  at every use, so a script that writes the time more than once writes the text
]]
local function storeClock()
  local time = redis.call('TIME')
  local ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  return ms, string.format('%.0f', ms)
end
