import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SqliteBackend } from '../../../../lib/backends/sqlite/sqlite.backend';
import { tickTaskId } from '../../../../lib/schedule/schedule-ticker';
import { isMessage } from '../../../fixtures/sqlite/sqlite-child.messages';
import {
  scheduleDueSince,
  storeOf,
  tasksOfSchedule,
  tickerOn,
} from '../../../helpers/schedule-race';
import { testAlias } from '../../../helpers/test-alias';
import { exited, forkTs, killChild, nextMessage } from '../../../helpers/ts-child';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

const FIXTURES = join(__dirname, '../../../fixtures/sqlite');

describe('SqliteBackend schedules', () => {
  jest.setTimeout(180_000);

  let dir: string;
  let url: string;
  let alias: string;
  const children: ChildProcess[] = [];
  const backends: SqliteBackend[] = [];

  const open = (): SqliteBackend => {
    const backend = new SqliteBackend(
      alias,
      {
        backend: SqliteBackend,
        url,
        options: { busyTimeout: 20_000 },
      },
      storeRules,
    );
    backends.push(backend);
    return backend;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-sqlite-schedules-'));
    url = `sqlite://${join(dir, 'threadmill.db')}`;
    alias = testAlias();
  });

  afterEach(async () => {
    await Promise.all(children.splice(0).map(killChild));
    for (const backend of backends.splice(0)) await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The ticks schedule `id` enqueued: contiguous from `cursor`, one task each. */
  async function expectEachTickOnce(backend: SqliteBackend, id: string, cursor: number) {
    const ticks = (await tasksOfSchedule(backend, id)).map((record) => record.id);
    expect(ticks.length).toBeGreaterThanOrEqual(6);
    expect(ticks).toEqual(ticks.map((_, n) => tickTaskId(id, cursor + n * 1000)));
    const stored = await storeOf(backend).getSchedule(id);
    expect(stored?.nextTickMs).toBe(cursor + ticks.length * 1000);
    return ticks.length;
  }

  it('enqueues each tick exactly once when connections to one file race', async () => {
    const pools = [open(), open(), open()];
    const cursor = await scheduleDueSince(pools[0], 'race', 1000, 5_000);
    for (let round = 0; round < 3; round++) {
      await Promise.all(pools.map((pool) => tickerOn(pool).pass()));
    }
    await expectEachTickOnce(pools[0], 'race', cursor);
  });

  it('enqueues each tick exactly once when processes on one file race', async () => {
    const parent = open();
    const cursor = await scheduleDueSince(parent, 'race', 1000, 8_000);
    const racers = [0, 1, 2].map(() => {
      const child = forkTs(join(FIXTURES, 'sqlite-schedule-ticker.child.ts'), [
        JSON.stringify({ url, alias, count: 20 }),
      ]);
      children.push(child);
      return child;
    });
    await Promise.all(
      racers.map((child) =>
        nextMessage(child, isMessage('ready'), { timeoutMs: 90_000, what: 'ready' }),
      ),
    );
    const reports = racers.map((child) =>
      nextMessage(child, isMessage('ticked'), { timeoutMs: 90_000, what: 'its passes' }),
    );
    for (const child of racers) child.send({ type: 'go' });
    const enqueued = (await Promise.all(reports)).reduce((sum, report) => sum + report.enqueued, 0);
    await Promise.all(racers.map(exited));
    // Every enqueue a racer counted was stored; a refused one counted nowhere.
    expect(await expectEachTickOnce(parent, 'race', cursor)).toBe(enqueued);
  });
});
