--[[
  publishLive: the one place a live task event (enqueued, started,
  progressed) is announced. RedisScripts prepends this file to every script
  that names it (enqueue.lua and enqueueUnique.lua for the tasks they made,
  acquire.lua for the ids it leased, storeProgress.lua for stored
  progress). Each announces in the step that makes the change, so no event
  goes unannounced, whoever made it.

  A listener marks the alias's live channel as listened to by a STRING
  under the channel's own name (markListening-1.lua, as for the finished
  channel), expiring unless renewed. The caller asks liveListened (one
  EXISTS) once per call, and only when it changed something; while nobody
  listens it builds no entry and sends no message. Otherwise it builds one
  entry per task and publishes them in ONE PUBLISH: the JSON list of the
  event word and the list of entries, an entry being [id, queue, name], and
  [id, queue, name, progress] for progressed. The name is read without decoding the task's
  data (liveTaskName): RedisRecordCodec.encodeLive writes it first, so an
  anchored match finds it; a name it cannot read plainly goes as null, and
  the listener reads it from the task.

  A script that may announce on both channels (acquire.lua stores finished
  tasks and leases in one call) asks anyListened of both marks first, one
  EXISTS of two keys: while it is false (nobody listens to the alias) no
  other EXISTS is sent, so the call costs one EXISTS in all.

  Parameters
  channel  pub/sub channel of the alias's live events, and the name of its
           listener mark (STRING, same hash tag as the caller's KEYS)
  event    the event word: enqueued, started or progressed
  entries  the entries, each already JSON text (a list the caller built)

  names    (queueWord) the queues' names separated by spaces, of which the
           q-th is wanted

  Returns nothing; liveListened returns whether the mark exists,
  anyListened whether any of the marks it is given exists, liveTaskName
  the name as JSON text (a string, or null), queueWord the q-th name
]]
local function liveListened(channel)
  return redis.call('EXISTS', channel) == 1
end

local function anyListened(...)
  return redis.call('EXISTS', ...) > 0
end

local function queueWord(names, q)
  local i = 0
  for name in string.gmatch(names, '%S+') do
    i = i + 1
    if i == q then
      return name
    end
  end
  return ''
end

local function liveTaskName(data)
  return data and string.match(data, '^{"task":{"name":("[^"\\]*")') or 'null'
end

local function publishLive(channel, event, entries)
  if #entries == 0 then
    return
  end
  redis.call('PUBLISH', channel, '["' .. event .. '",[' .. table.concat(entries, ',') .. ']]')
end
