import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import type {
  StageEnqueueCommand,
  StageEnqueuerMessage,
} from '../fixtures/stage/stage-enqueuer.child';
import { cliStage, STAGE_STORES } from '../helpers/cli-stage';
import { forkTs, killChild, nextMessage } from '../helpers/ts-child';

// Two processes enqueue tasks of one unique key at the same moment, on the
// run's Redis or Postgres: the store alone decides, so each key makes one task.

const ENQUEUER = join(__dirname, '../fixtures/stage/stage-enqueuer.child.ts');
/** Each process sends this many enqueues of the key at once. */
const PER_PROCESS = 25;

const isMessage =
  <K extends StageEnqueuerMessage['type']>(type: K) =>
  (message: unknown): message is Extract<StageEnqueuerMessage, { type: K }> =>
    (message as { type?: unknown } | null)?.type === type;

describe.each(STAGE_STORES)('unique keys across processes (e2e on %s)', (store) => {
  // A child transpiles its TypeScript at start: seconds on a busy machine.
  jest.setTimeout(120_000);
  const stage = cliStage(['default'], store);
  const children: ChildProcess[] = [];

  afterEach(async () => {
    await Promise.all(children.splice(0).map(killChild));
  });

  it('makes one task of one key enqueued at once by 2 processes, in each mode', async () => {
    const producers = Array.from({ length: 2 }, () =>
      forkTs(ENQUEUER, [JSON.stringify(stage.env())]),
    );
    children.push(...producers);
    await Promise.all(
      producers.map((child) => nextMessage(child, isMessage('ready'), { timeoutMs: 90_000 })),
    );
    const modes = [
      { key: 'once', mode: 'unfinished' },
      { key: 'window', mode: 'window', ttlMs: 60_000 },
      { key: 'debounce', mode: 'debounce', ttlMs: 60_000 },
    ] as const;
    for (const unique of modes) {
      const replies = producers.map((child) =>
        nextMessage(child, isMessage('enqueued'), { what: `the ids of ${unique.mode}` }),
      );
      const command: StageEnqueueCommand = { count: PER_PROCESS, unique };
      for (const child of producers) child.send(command);
      const ids = (await Promise.all(replies)).flatMap((reply) => reply.ids);
      expect(ids).toHaveLength(2 * PER_PROCESS);
      expect(new Set(ids).size).toBe(1);
      await expect(stage.backend.tasks.getResult(ids[0])).resolves.toMatchObject({
        task: { unique },
      });
    }
    const waiting = [
      ...(await stage.backend.reads.peek('default', 'ready', 10)),
      ...(await stage.backend.reads.peek('default', 'deferred', 10)),
    ];
    expect(waiting).toHaveLength(modes.length);
  });
});
