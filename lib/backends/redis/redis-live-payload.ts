import {
  LIVE_TASK_EVENTS,
  type LiveTaskEvent,
  type LiveTaskEventName,
} from '../../core/live-task-feed';

/**
 * The events of one message on the live channel, as publishLive.function.lua
 * builds it: `[event, [[id, queue, name], ...]]`, each entry of `progressed`
 * with the stored progress fourth. Null when it is not our shape (a message
 * someone else published there), which is then ignored.
 */
export function decodeLiveMessage(message: string): LiveTaskEvent[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return null;
  const [event, entries] = parsed as unknown[];
  if (!LIVE_TASK_EVENTS.includes(event as LiveTaskEventName) || !Array.isArray(entries)) {
    return null;
  }
  const events: LiveTaskEvent[] = [];
  for (const entry of entries as unknown[]) {
    if (!Array.isArray(entry)) return null;
    const [id, queue, name, progress] = entry as unknown[];
    if (typeof id !== 'string' || typeof queue !== 'string') return null;
    if (name !== null && typeof name !== 'string') return null;
    const base = { event: event as LiveTaskEventName, id, queue, name };
    // The progress came inside the message as stored JSON: its text is what a read returns.
    events.push(event === 'progressed' ? { ...base, progress: JSON.stringify(progress) } : base);
  }
  return events;
}
