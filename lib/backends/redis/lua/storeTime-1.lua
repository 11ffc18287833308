#!lua flags=no-writes
--[[
  Redis's time, for the few decisions made outside a script that compare
  times other processes wrote (a maintenance pass's ranges, telemetry windows,
  the history a peek shows): those times are Redis's (storeClock), so the
  comparison must be too, whatever the caller's own clock says. The maintenance
  heartbeat comes with it, so its age is measured on the clock that wrote
  it. A script rather than TIME so that on a Redis Cluster it runs on the
  node that holds the alias (each node has its own clock). It writes
  nothing (no-writes), so it also answers on a Redis that is over
  maxmemory, where a health check most needs it.

  KEYS[1] maintenance heartbeat (STRING) Redis's time of the last maintenance pass (ms)

  ARGV none

  Returns {Redis's time (ms since epoch), the last maintenance pass (ms, Redis's clock) or false}
  Errors WRONGTYPE when the heartbeat key holds another type
]]

return { storeClock(), redis.call('GET', KEYS[1]) }
