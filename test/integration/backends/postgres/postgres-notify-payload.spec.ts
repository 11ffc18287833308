import { PostgresBackend } from '../../../../lib/backends/postgres/postgres.backend';
import { newRecord } from '../../../../lib/backend-kit';
import type { FinishedTask } from '../../../../lib/core/finished-task-feed';
import type { LiveTaskEvent } from '../../../../lib/core/live-task-feed';
import { progressJson, storedProgress } from '../../../../lib/core/task-progress';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { NAME_MAX_LENGTH, TASK_ID_MAX_LENGTH } from '../../../../lib/core/validate-name.util';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { createTestSchema, type TestSchema } from '../../../helpers/postgres-schema';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';

// NOTIFY refuses a payload of 8,000 bytes or more, and its refusal fails the
// whole transaction. Here every field a notification carries is as long as
// allowed and made of the characters JSON escapes the most, in batches
// large enough to need many notifications: every write still commits, and
// every event reaches another process's listener whole.

/** A name as long as allowed, each character escaped to six in JSON (`\u0001`). */
const WIDEST_NAME = '\u0001'.repeat(NAME_MAX_LENGTH);
/** The widest progress accepted: quotes, each escaped again inside the event's JSON. */
const WIDEST_PROGRESS = (() => {
  let value = '';
  // progressJson refuses more than MAX_PROGRESS_BYTES: the longest string it takes.
  for (;;) {
    try {
      progressJson(`${value}"`, 'x');
    } catch {
      return value;
    }
    value += '"';
  }
})();
const TASKS = 150;

describe('PostgresBackend notifications of the widest tasks (NOTIFY payload limit)', () => {
  let created: TestSchema;
  let alias: string;
  const backends: PostgresBackend[] = [];

  const open = () => {
    const backend = new PostgresBackend(
      alias,
      {
        backend: PostgresBackend,
        url: created.url,
        queues: [WIDEST_NAME],
        options: { schema: created.name },
      },
      storeRules,
    );
    backends.push(backend);
    return backend;
  };

  beforeEach(async () => {
    created = await createTestSchema();
    alias = testAlias();
  });

  afterEach(async () => {
    for (const backend of backends.splice(0)) await backend.close();
    await created.drop();
  });

  it('commits every write and delivers every event whole when each field is as long as allowed', async () => {
    const writer = open();
    const listener = open();
    const live: LiveTaskEvent[] = [];
    const finished: FinishedTask[] = [];
    const unsubscribes = await Promise.all([
      listener.feeds.subscribeLive((events) => void live.push(...events)),
      listener.feeds.subscribeFinished((tasks) => void finished.push(...tasks)),
    ]);
    const records = Array.from({ length: TASKS }, (_, i) => {
      const id = `${i}-`.padEnd(TASK_ID_MAX_LENGTH, 'x');
      return newRecord(alias, { id, name: WIDEST_NAME, queue: WIDEST_NAME });
    });

    await writer.tasks.enqueueMany(records);
    const leased = await writer.leases.acquire([WIDEST_NAME], {
      workerId: 'host:1-0',
      timeoutMs: 0,
      max: TASKS,
    });
    expect(leased).toHaveLength(TASKS);
    const stored = storedProgress(1, progressJson(WIDEST_PROGRESS, WIDEST_NAME));
    await expect(
      writer.leases.storeProgress(leased.map((record) => ({ record, stored }))),
    ).resolves.toEqual(leased.map(() => true));
    await writer.leases.acknowledge(
      leased.map((record) => ({
        ...record,
        status: TaskResultStatus.SUCCESSFUL,
        finishedAt: new Date(),
      })),
    );

    const ids = records.map((record) => record.id).sort();
    const heard = (event: LiveTaskEvent['event']) =>
      live.filter((e) => e.event === event).map((e) => e.id);
    await waitFor(() => finished.length === TASKS && heard('progressed').length === TASKS, {
      what: 'every event of every task',
    });
    for (const event of ['enqueued', 'started', 'progressed'] as const) {
      expect(heard(event).sort()).toEqual(ids);
    }
    expect(live.every((e) => e.queue === WIDEST_NAME && e.name === WIDEST_NAME)).toBe(true);
    expect(live.filter((e) => e.event === 'progressed').map((e) => e.progress)).toEqual(
      leased.map(() => stored),
    );
    expect(finished.map((task) => task.id).sort()).toEqual(ids);
    for (const unsubscribe of unsubscribes) await unsubscribe();
  });
});
