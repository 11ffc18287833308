import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import Database from 'better-sqlite3';

import { SqliteBackend } from '../../../../lib/backends/sqlite/sqlite.backend';
import type { LiveTaskEvent } from '../../../../lib/core/live-task-feed';
import { storedProgress } from '../../../../lib/core/task-progress';
import { newRecord } from '../../../../lib/backend-kit';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// The steps that enqueue, lease and store progress record live events only
// while a listener's row is live. A plain connection to the file (what an
// operator's sqlite3 shell sees) counts the rows: none while nobody
// listens, every event once a listener subscribed, and no listener row left
// once it unsubscribed.
describe('SqliteBackend live events table and its listener rows', () => {
  let dir: string;
  let alias: string;
  let backend: SqliteBackend;
  let raw: Database.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-sqlite-live-'));
    alias = testAlias();
    const filename = join(dir, 'threadmill.db');
    backend = new SqliteBackend(
      alias,
      { backend: SqliteBackend, url: `sqlite://${filename}` },
      storeRules,
    );
    raw = new Database(filename);
  });

  afterEach(async () => {
    raw.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = (table: string): number =>
    (raw.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

  async function runOne(): Promise<string> {
    const task = await backend.tasks.enqueue(newRecord(alias));
    const [leased] = await backend.leases.acquire(['default'], {
      workerId: 'host:1-0',
      timeoutMs: 0,
    });
    await expect(
      backend.leases.storeProgress([{ record: leased, stored: storedProgress(1, '0.5') }]),
    ).resolves.toEqual([true]);
    return task.id;
  }

  it('records nothing while nobody listens, every event while someone does', async () => {
    await runOne();
    expect(count('threadmill_live_events')).toBe(0);
    expect(count('threadmill_live_listeners')).toBe(0);

    const heard: LiveTaskEvent[] = [];
    const off = await backend.feeds.subscribeLive((events) => heard.push(...events));
    expect(count('threadmill_live_listeners')).toBe(1);
    const id = await runOne();
    await waitFor(() => heard.length === 3, { what: 'three live events' });
    expect(heard.map((event) => [event.event, event.id])).toEqual([
      ['enqueued', id],
      ['started', id],
      ['progressed', id],
    ]);
    expect(count('threadmill_live_events')).toBe(3);

    await off();
    expect(count('threadmill_live_listeners')).toBe(0);
    await runOne();
    expect(count('threadmill_live_events')).toBe(3);
  });
});
