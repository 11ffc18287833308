/**
 * User-facing text about task names across apps: contracts implemented by a
 * worker, and names an app enqueues or leases without registering them.
 */

import { shown, shownList } from '../core/shown';

export const contractOptionRedefined = (
  place: string,
  contract: string,
  options: readonly string[],
): string =>
  `Task ${place} implements the contract ${shown(contract)} but sets ${shownList(options)}, ` +
  `which the contract decides (an app that only enqueues stores the contract's). ` +
  `Change them in defineTask({ name: ${shown(contract)}, ... }) and keep only takesContext, ` +
  `blockingMs, cancel and schedule on @Task.`;

export const unknownTaskUnleasedLogged = (name: string, count: number): string =>
  `Gave back ${count} task(s) named ${shown(name)}: no @Task of that name is registered in this ` +
  `application. They wait, no attempt counted, for a worker that registers it, and fail once ` +
  `none has for --unknown-task-grace (default 10 minutes). Deploy the worker that declares ` +
  `the task, or check the name the producer enqueues.`;

export const enqueuedUnregistered = (name: string): string =>
  `No @Task named ${shown(name)} is registered in this application: stored for the worker ` +
  `that registers it, with the options given here. If no worker does, check the name.`;
