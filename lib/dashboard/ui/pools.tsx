import { getJson } from './api';
import type { PoolStatus } from './api-types';
import { useDashboard } from './context';
import { ago, count, dateTime } from './format';
import { useNow, usePolled } from './hooks';

/** The worker pools of the alias: alive or lapsed, their children, slots and heartbeat age. */
export function PoolsView() {
  const { alias, meta } = useDashboard();
  const pools = usePolled(
    `pools:${alias}`,
    () => getJson<PoolStatus[]>('pools', { alias }),
    meta.refreshMs,
  );
  const now = useNow(1000);
  const list = pools.data ?? [];
  return (
    <section aria-labelledby="pools-title">
      <h2 id="pools-title" tabIndex={-1}>
        Worker pools
      </h2>
      {pools.error && (
        <p class="error" role="alert">
          The pools could not be read: {pools.error}
        </p>
      )}
      {!pools.data && !pools.error && <p role="status">Reading the pools…</p>}
      {pools.data && list.length === 0 && <p>No worker pool is running on this backend.</p>}
      {list.length > 0 && (
        <div class="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Pool</th>
                <th scope="col">State</th>
                <th scope="col">Host · pid</th>
                <th scope="col" class="num">
                  Children
                </th>
                <th scope="col" class="num">
                  Slots
                </th>
                <th scope="col" class="num">
                  Holds
                </th>
                <th scope="col">Queues</th>
                <th scope="col">Heartbeat</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {list.map((pool) => (
                <tr key={pool.id} data-pool={pool.id}>
                  <th scope="row">
                    <code>{pool.id}</code>
                  </th>
                  <td>
                    <span class={pool.alive ? 'badge alive' : 'badge lapsed'}>
                      {pool.alive ? 'Alive' : 'Lapsed'}
                    </span>
                  </td>
                  <td>
                    {pool.host} · {pool.pid}
                  </td>
                  <td class="num">{count(pool.children)}</td>
                  <td class="num">{count(pool.slots)}</td>
                  <td class="num">{count(pool.held)}</td>
                  <td>{pool.queues.join(', ')}</td>
                  <td>{ago(pool.beatAt, now)}</td>
                  <td>{dateTime(pool.startedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
