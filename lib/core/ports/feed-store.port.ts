import type { FeedUnsubscribe, FinishedTasksListener } from '../finished-task-feed';
import type { LiveTaskEventsListener } from '../live-task-feed';

/**
 * What crosses processes as it happens: finished tasks (a result awaited,
 * TaskEvents) and live events (the dashboard's stream). Apart from the
 * other parts as a listener is apart from a driver: it holds a transport
 * open while someone listens.
 */
export interface FeedStore {
  /**
   * Calls `listener` with the tasks this store finishes (acknowledged,
   * cancelled, failed by the reaper or a pool recovery), by any process
   * that shares the store, from the moment the returned promise resolves
   * until its unsubscribe is called. Tasks finished while nobody was
   * subscribed are not replayed: read the result after subscribing to close
   * that gap (waitForFinished does). One transport per alias, opened for the
   * first listener (FinishedTaskFanout); closed with the backend.
   */
  subscribeFinished(listener: FinishedTasksListener): Promise<FeedUnsubscribe>;
  /**
   * Calls `listener` with the live events of this store's tasks (`enqueued`
   * when a task is made, `started` when a lease is taken, `progressed` when
   * progress is stored), by any
   * process that shares the store, from the moment the returned promise
   * resolves until its unsubscribe is called. Nothing is replayed, and a
   * listener too slow for the store's bound may miss events (see each
   * backend). One transport per alias, opened for the first listener
   * (LiveTaskFanout), so an alias nobody listens to stores and sends none.
   */
  subscribeLive(listener: LiveTaskEventsListener): Promise<FeedUnsubscribe>;
}
