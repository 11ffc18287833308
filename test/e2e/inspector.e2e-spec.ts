import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import type { TaskBackend } from '../../lib/core/task-backend.interface';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { errorToRecord } from '../../lib/core/task-serializer';
import { cliStage, STAGE_STORES } from '../helpers/cli-stage';
import {
  INSPECTOR_QUEUE,
  INSPECTOR_ROOT,
  inspectorCommand,
  inspectorTask,
  wholeFrame,
} from '../helpers/inspector-terminal';
import { TmuxSession } from '../helpers/tmux-session';

// The real `threadmill inspector` (the sample app's CLI, run from source) in a
// real terminal (tmux, 160x48) against the run's real Redis or Postgres. What
// it says when its Redis goes away or refuses it: inspector-redis-faults.e2e-spec.ts.

class ReportFailedError extends Error {
  override readonly name = 'ReportFailedError';
}

describe.each(STAGE_STORES)('threadmill inspector (e2e, tmux, on %s)', (store) => {
  // Each test boots the sample app from source in a terminal, on 2 shared cores.
  jest.setTimeout(120_000);
  const stage = cliStage([INSPECTOR_QUEUE, 'emails'], store);
  let alias: string;
  let backend: TaskBackend;
  let terminal: TmuxSession | undefined;

  beforeEach(() => {
    ({ alias, backend } = stage);
  });

  afterEach(async () => {
    await terminal?.kill();
    terminal = undefined;
  });

  it('shows every tab, a failed task with its error, and quits on q with the terminal restored', async () => {
    // Three tasks go first (priority 10) so acquire takes exactly these.
    const first = ['Reports.daily', 'Mail.send', 'Images.resize'].map((name) =>
      inspectorTask(alias, name, { priority: 10 }),
    );
    await backend.tasks.enqueueMany(first);
    const running = await backend.leases.acquire([INSPECTOR_QUEUE], {
      workerId: 'e2e-host:4242-0',
      max: 3,
      timeoutMs: 0,
    });
    expect(running).toHaveLength(3);
    const byName = (name: string): TaskRecord => running.find((r) => r.task.name === name)!;
    const now = new Date();
    const failure = errorToRecord(new ReportFailedError('the report for 2026-11-29 has no rows'));
    await backend.leases.acknowledge([
      {
        ...byName('Reports.daily'),
        status: TaskResultStatus.FAILED,
        finishedAt: now,
        errors: [failure],
      },
      {
        ...byName('Mail.send'),
        status: TaskResultStatus.SUCCESSFUL,
        finishedAt: now,
        returnValue: 'sent',
      },
    ]);
    const waiting = inspectorTask(alias, 'Billing.invoice');
    const deferred = inspectorTask(alias, 'Billing.remind', {
      runAfter: new Date(Date.now() + 3_600_000),
    });
    await backend.tasks.enqueueMany([waiting, deferred]);
    const failedId = byName('Reports.daily').id;

    terminal = await TmuxSession.start({ width: 160, height: 48, cwd: INSPECTOR_ROOT });
    await terminal.type(inspectorCommand(alias, stage.env()));

    // Opens on Ready, counts on every tab.
    let screen = await terminal.until((s) => s.includes(waiting.id), 'the ready task', 60_000);
    expect(screen).toContain(`Threadmill inspector · backend ${alias}`);
    await terminal.until(
      (s) => /1 Running 1\s+2 Ready 1\s+3 Deferred 1\s+4 Successful 1\s+5 Failed 1/.test(s),
      'the tab counts',
    );

    await terminal.press('1');
    screen = await terminal.until(
      (s) => s.includes(byName('Images.resize').id),
      'the running task',
    );
    expect(screen).toMatch(/ID\s+TASK\s+PRIORITY\s+STARTED\s+ATTEMPTS\s+WORKERS/);
    expect(screen).toMatch(/Images\.resize\s+10\s+\S+( ago)?\s+1\s+e2e-host:4242-0/);

    await terminal.press('3');
    screen = await terminal.until((s) => s.includes(deferred.id), 'the deferred task');
    expect(screen).toMatch(/Billing\.remind\s+in (59|60)m/);

    await terminal.press('4');
    screen = await terminal.until((s) => s.includes(byName('Mail.send').id), 'the successful task');
    expect(screen).toMatch(/ID\s+TASK\s+FINISHED\s+ATTEMPTS\s+WORKERS/);

    await terminal.press('5');
    screen = await terminal.until((s) => s.includes(failedId), 'the failed task');
    expect(screen).toMatch(/Reports\.daily\s+\S+( ago)?\s+ReportFailedError/);

    await terminal.press('Enter');
    // The traceback is read from the lower rows of the frame.
    screen = await terminal.until(
      (s) => s.includes(`Task ${failedId}`) && wholeFrame(s),
      'the detail pane',
    );
    expect(screen).toMatch(/status\s+FAILED/);
    expect(screen).toContain('#1 ReportFailedError');
    expect(screen).toContain('ReportFailedError: the report for 2026-11-29 has no rows');
    expect(screen).toMatch(/at .*inspector\.e2e-spec\.ts/);

    await terminal.press('q');
    screen = await terminal.until((s) => /EXIT:\d+/.test(s), 'the exit status', 20_000);
    expect(screen).toMatch(/^EXIT:0$/m);
    // The alternate screen is gone: the shell's own screen is back, the UI is not.
    expect(screen).not.toContain('Threadmill inspector');
    expect(screen).toContain('inspector --alias');
  });

  // A million ready tasks must not slow the first screen. Filling a
  // million through enqueueMany takes minutes on a shared machine, so this
  // test uses 100k and bench/inspector-first-screen.ts measures the million.
  // Peek and telemetry cost the same either way (ZRANGE with a limit, ZCARD).
  it('shows the first screen within 2 s with 100k ready tasks, and restores the terminal on SIGTERM', async () => {
    const total = 100_000;
    const chunk = 5_000;
    const enqueuedAt = new Date();
    let firstId = '';
    for (let done = 0; done < total; done += chunk) {
      const records = Array.from({ length: chunk }, () => ({
        ...inspectorTask(alias, 'Bulk.fill'),
        enqueuedAt,
      }));
      if (done === 0) firstId = records[0].id;
      await backend.tasks.enqueueMany(records);
    }

    terminal = await TmuxSession.start({ width: 160, height: 48, cwd: INSPECTOR_ROOT });
    const launched = Date.now();
    await terminal.type(inspectorCommand(alias, stage.env()));
    // The clock starts at the inspector's first frame (the app booted, Ink
    // drew), before any read of the backend: what follows is the cost of the
    // reads and of drawing them, which is what a big queue could slow down.
    await terminal.until((s) => s.includes('Threadmill inspector ·'), 'the first frame', 60_000);
    const firstFrame = Date.now();
    const screen = await terminal.until(
      (s) => s.includes('2 Ready 100k') && s.includes(firstId),
      'the counts and the first rows',
    );
    const shown = Date.now();
    expect(screen).toMatch(/default\s+100k ▸ 0/);
    expect(shown - firstFrame).toBeLessThan(2000);
    process.stdout.write(
      `inspector with ${total} ready tasks: first frame ${firstFrame - launched} ms after launch, ` +
        `counts and rows ${shown - firstFrame} ms later\n`,
    );
    // Killed rather than quit, it still gives the terminal back.
    process.kill(await terminal.foregroundPid(), 'SIGTERM');
    const after = await terminal.until((s) => /^EXIT:\d+$/m.test(s), 'the exit on SIGTERM');
    expect(after).toMatch(/^EXIT:0$/m);
    expect(after).not.toContain('Threadmill inspector');
  });
});

describe('threadmill inspector (e2e): loading', () => {
  // A process that transpiles the library at start, on 2 shared cores.
  jest.setTimeout(60_000);

  it('is the only part of the library that loads Ink and React, and only when it runs', async () => {
    // A real process, so require.cache is Node's own and not Jest's registry.
    const probe = `
      require('reflect-metadata');
      const cli = require('./lib/cli');
      if (!cli.ThreadmillCommandsModule) throw new Error('the CLI module is not exported');
      const loaded = Object.keys(require.cache).filter((f) => /node_modules\\/(ink|react)\\//.test(f));
      process.stdout.write(JSON.stringify(loaded));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', './test/helpers/transpile-register.js', '-e', probe],
      { cwd: INSPECTOR_ROOT, encoding: 'utf8' },
    );
    expect(JSON.parse(stdout)).toEqual([]);
  });
});
