import { Injectable, type INestApplicationContext } from '@nestjs/common';

// The public API only: what users import.
import { OnTaskEvent, TaskEvents, TaskResultStatus, type TaskResult } from '../../lib';
import { cliStage, STAGE_STORES } from '../helpers/cli-stage';
import { readyRecord } from '../helpers/ready-record';
import { waitFor } from '../helpers/wait-for';
import { decideCancel } from '../../lib/lifecycle/cancel-decision';

// @OnTaskEvent and TaskEvents.on(..., { allProcesses }) for the live events
// in an app of their own, hearing a task that a real worker pool's child
// process starts and reports progress for, on Redis and on Postgres.

const heard: { started: TaskResult[]; progressed: TaskResult[]; enqueued: TaskResult[] } = {
  started: [],
  progressed: [],
  enqueued: [],
};

/** How far a fixture.progress task's report got. */
const doneOf = (result: TaskResult): number | undefined =>
  (result.progress as { done?: number } | undefined)?.done;

describe.each(STAGE_STORES)(
  'live task events from every process (e2e: real pool on %s)',
  (store) => {
    jest.setTimeout(90_000);
    const stage = cliStage(undefined, store);

    function listeningApp(): Promise<INestApplicationContext> {
      @Injectable()
      class Listeners {
        @OnTaskEvent('started', { task: 'fixture.progress' })
        started(result: TaskResult): void {
          heard.started.push(result);
        }

        @OnTaskEvent('enqueued')
        enqueued(result: TaskResult): void {
          heard.enqueued.push(result);
        }
      }

      return stage.appContext([Listeners]);
    }

    beforeEach(() => {
      heard.started = [];
      heard.progressed = [];
      heard.enqueued = [];
    });

    it("hears a pool child's start and each progress it stores, with the value stored", async () => {
      const app = await listeningApp();
      try {
        const subscription = app
          .get(TaskEvents)
          .on('progressed', (result) => void heard.progressed.push(result), { allProcesses: true });
        await subscription.ready;
        stage.start(['worker', '--alias', stage.alias, '--processes', '1', '--threads', '1']);
        const task = readyRecord(stage.alias, { name: 'fixture.progress', args: [3] });
        await stage.backend.tasks.enqueue(task);

        const last = await waitFor(() => heard.progressed.find((r) => doneOf(r) === 3), {
          timeoutMs: 30_000,
          what: 'the last progress heard',
        });
        expect(heard.enqueued.map((r) => r.id)).toEqual([task.id]);
        expect(heard.started).toHaveLength(1);
        const [started] = heard.started;
        expect(started.id).toBe(task.id);
        expect(started.status).toBe(TaskResultStatus.RUNNING);
        // Run by the pool's child, not this process.
        expect(started.workerIds[0]).not.toContain(`:${process.pid}-`);
        expect(last).toMatchObject({ id: task.id, status: TaskResultStatus.RUNNING });
        expect(last.progress).toEqual({ done: 3, of: 3 });
        // Each report heard once, in order, each with its own value (the stores may merge some).
        const done = heard.progressed.map((r) => doneOf(r) ?? 0);
        expect(done).toEqual([...done].sort((a, b) => a - b));
        expect(new Set(done).size).toBe(done.length);
        subscription();
        await stage.backend.control.cancel(task.id, decideCancel);
      } finally {
        await app.close();
      }
      // Closing the module unsubscribed everything: no process listens to the feed any more.
      await waitFor(async () => (await stage.feedListeners('live')) === 0, {
        what: 'no subscriber left on the live channel',
      });
    });
  },
);
