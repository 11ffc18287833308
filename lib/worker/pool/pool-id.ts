import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * A pool id unique across machines and restarts (`host.pid.random`), made of
 * characters every backend accepts in a key or a name. A pool's main process
 * takes one, and so does an app that runs an in-process worker.
 *
 * @internal
 */
export function newPoolId(): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9_.-]/g, '_')
      .slice(0, 100) || 'host';
  return `${host}.${process.pid}.${randomBytes(4).toString('hex')}`;
}
