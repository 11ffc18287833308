import { Injectable, type INestApplicationContext } from '@nestjs/common';

// The public API only: what users import.
import { OnTaskEvent, TaskEvents, TaskResultStatus, type TaskResult } from '../../lib';
import { cliStage, STAGE_STORES } from '../helpers/cli-stage';
import { readyRecord } from '../helpers/ready-record';
import { waitFor } from '../helpers/wait-for';

// @OnTaskEvent and TaskEvents.on(..., { allProcesses }) in an app of their
// own, hearing tasks that a real worker pool's child process ran on Redis.

const heard: { echo: TaskResult[]; all: TaskResult[]; failing: number } = {
  echo: [],
  all: [],
  failing: 0,
};

describe.each(STAGE_STORES)(
  'events of finished tasks from every process (e2e: real pool on %s)',
  (store) => {
    jest.setTimeout(90_000);
    const stage = cliStage(undefined, store);

    function listeningApp(): Promise<INestApplicationContext> {
      @Injectable()
      class Listeners {
        @OnTaskEvent('finished', { task: 'sample.echo' })
        echoed(result: TaskResult): void {
          heard.echo.push(result);
        }

        @OnTaskEvent('finished')
        failing(): never {
          heard.failing++;
          throw new Error('a listener that always throws');
        }
      }

      return stage.appContext([Listeners]);
    }

    beforeEach(() => {
      heard.echo = [];
      heard.all = [];
      heard.failing = 0;
    });

    it('hands a finished task of a pool child to @OnTaskEvent, filtered by task, despite a failing listener', async () => {
      const app = await listeningApp();
      try {
        const subscription = app
          .get(TaskEvents)
          .on('finished', (result) => void heard.all.push(result), { allProcesses: true });
        await subscription.ready;
        stage.start(['worker', '--alias', stage.alias, '--processes', '1', '--threads', '1']);
        const echo = readyRecord(stage.alias, { name: 'sample.echo', args: ['hello'] });
        const sleep = readyRecord(stage.alias, { name: 'sample.sleep', args: [1] });
        await stage.backend.tasks.enqueueMany([sleep, echo]);

        await waitFor(() => heard.echo.length === 1 && heard.all.length === 2, {
          timeoutMs: 30_000,
          what: 'both tasks heard',
        });
        const [result] = heard.echo;
        expect(result.id).toBe(echo.id);
        expect(result.status).toBe(TaskResultStatus.SUCCESSFUL);
        expect(result.returnValue).toEqual(['hello']);
        // Run by the pool's child, not this process.
        expect(result.workerIds[0]).not.toContain(`:${process.pid}-`);
        expect(heard.all.map((r) => r.id).sort()).toEqual([echo.id, sleep.id].sort());
        // The listener that throws heard both and broke nothing.
        expect(heard.failing).toBe(2);
        subscription();
      } finally {
        await app.close();
      }
      // Closing the module unsubscribed everything: no process listens to the feed any more.
      await waitFor(async () => (await stage.feedListeners('finished')) === 0, {
        what: 'no subscriber left on the channel',
      });
    });
  },
);
