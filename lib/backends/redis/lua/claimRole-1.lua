#!lua
--[[
  Claim a role for a holder, or renew the holder's claim: the role's key
  names its holder and expires with the lease (PX), so a holder that stops
  claiming (a pool that died) loses the role once its lease runs out, and
  the next claim by anyone takes it. Redis's own expiry decides, so no
  host's clock is read. The #!lua line makes Redis refuse the call before it
  runs when memory is over maxmemory (the claimant then simply does not hold
  the role this time).

  KEYS[1] the role (STRING) value = holder, expiring when the lease runs out

  ARGV[1] holder (string)
  ARGV[2] lease length (ms, whole)

  Returns 1 when ARGV[1] holds the role now (taken or renewed), 0 while
  another holder's lease runs
  Errors OOM before anything runs when Redis is over maxmemory
]]

local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
