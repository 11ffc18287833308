import type * as InkTestingLibrary from 'ink-testing-library' with { 'resolution-mode': 'import' };

import { TaskResultStatus, type TaskRecord } from '../../../lib/core';
import { loadInkRuntime, type InkRuntime } from '../../../lib/inspector/ink.loader';
import { importEsm } from '../../../lib/utils/import-esm.util';
import { renderInspector } from '../../../lib/inspector/inspector.app';
import { InspectorStore } from '../../../lib/inspector/inspector.store';
import { assertEsmMode } from '../../helpers/esm-mode';
import { waitFor } from '../../helpers/wait-for';
import { FakeInspectorBackend, taskRecord } from './fake-inspector-backend';

// Component tests: the real Ink renderer (loaded through the inspector's own
// ESM path) drawing into ink-testing-library's 100-column fake terminal.

const KEYS = { down: '\u001B[B', enter: '\r', tab: '\t', escape: '\u001B' };
const plain = (frame: string | undefined): string =>
  // eslint-disable-next-line no-control-regex -- ANSI escapes are what is stripped
  (frame ?? '').replace(/\u001B\[[0-9;?]*[A-Za-z]/g, '');

const minutesAgo = (m: number): Date => new Date(Date.now() - m * 60_000);

function fixtureBackend(alias = 'default'): FakeInspectorBackend {
  const failed: TaskRecord = taskRecord('f-1', {
    task: { name: 'Reports.daily', queue: 'default', priority: 0, runAfter: null, backend: alias },
    status: TaskResultStatus.FAILED,
    enqueuedAt: minutesAgo(30),
    startedAt: minutesAgo(20),
    lastAttemptedAt: minutesAgo(20),
    finishedAt: minutesAgo(19),
    workerIds: ['box:41-0'],
    errors: [
      {
        className: 'RangeError',
        traceback: 'RangeError: day out of range\n    at Reports.daily (reports.tasks.ts:12:11)',
      },
    ],
  });
  return new FakeInspectorBackend(alias, ['default', 'emails'])
    .put('default', 'running', [
      taskRecord('run-1', {
        task: { name: 'Mail.send', queue: 'default', priority: 5, runAfter: null, backend: alias },
        status: TaskResultStatus.RUNNING,
        startedAt: minutesAgo(3),
        workerIds: ['box:40-1'],
      }),
    ])
    .put('default', 'ready', [
      taskRecord('ready-1', { enqueuedAt: minutesAgo(7) }),
      taskRecord('ready-2'),
    ])
    .put('default', 'deferred', [
      taskRecord('later-1', {
        task: {
          name: 'Billing.charge',
          queue: 'default',
          priority: 0,
          runAfter: new Date(Date.now() + 2 * 3_600_000 + 60_000),
          backend: alias,
        },
      }),
    ])
    .put('default', 'successful', [
      taskRecord('ok-1', {
        status: TaskResultStatus.SUCCESSFUL,
        finishedAt: minutesAgo(1),
        workerIds: ['box:40-0'],
        returnValue: 'sent',
      }),
    ])
    .put('default', 'failed', [failed])
    .claim('default', { ready: 1_234_567, successful: 12_345, failed: 999 });
}

describe('inspector screen', () => {
  jest.setTimeout(15_000);

  let runtime: InkRuntime;
  let testing: typeof InkTestingLibrary;
  let store: InspectorStore | undefined;
  let instance: ReturnType<typeof InkTestingLibrary.render> | undefined;

  beforeAll(async () => {
    assertEsmMode();
    runtime = await loadInkRuntime();
    testing = await importEsm<typeof InkTestingLibrary>('ink-testing-library');
  });

  afterEach(() => {
    instance?.unmount();
    instance?.cleanup();
    store?.stop();
    instance = undefined;
    store = undefined;
  });

  const show = (backends: FakeInspectorBackend[], refreshIntervalMs = 2000) => {
    store = new InspectorStore({ backends, refreshIntervalMs });
    const rendered = testing.render(renderInspector(runtime, store));
    instance = rendered;
    store.start();
    const frame = (): string => plain(rendered.lastFrame());
    const until = (text: string | RegExp, what = String(text)) =>
      waitFor(() => (typeof text === 'string' ? frame().includes(text) : text.test(frame())), {
        what: `${what} on screen; last frame:\n${frame()}`,
        timeoutMs: 4000,
      });
    const press = (data: string) => rendered.stdin.write(data);
    return { frame, until, press, rendered: () => rendered };
  };

  it('opens on the Ready tab with the queues, their counts and every tab count abbreviated', async () => {
    const { frame, until } = show([fixtureBackend()]);
    await until('ready-2');
    await until('2 Ready 1.2M');
    const screen = frame();
    expect(screen).toContain('1 Running 1');
    expect(screen).toContain('3 Deferred 1');
    expect(screen).toContain('4 Successful 12k');
    expect(screen).toContain('5 Failed 999');
    expect(screen).toMatch(/default\s+1\.2M ▸ 1/);
    expect(screen).toMatch(/emails\s+0 ▸ 0/);
    expect(screen).toMatch(/ID\s+TASK\s+PRIORITY\s+ENQUEUED/);
    expect(screen).toMatch(/ready-1\s+MailTasks\.sendWelcome\s+0\s+7m ago/);
    expect(screen).toContain('1-2 of 2 listed (1.2M in Ready)');
    expect(screen).not.toContain('Backends');
    expect(screen).toContain('last 2 s: 0 in, 0 out (0 failed)');
  });

  it.each([
    ['1', /ID\s+TASK\s+PRIORITY\s+STARTED/, /run-1\s+Mail\.send\s+5\s+3m ago\s+1\s+box:40-1/],
    ['3', /ID\s+TASK\s+RUN AFTER\s+PRIORITY/, /later-1\s+Billing\.charge\s+in 2h/],
    ['4', /ID\s+TASK\s+FINISHED\s+ATTEMPTS/, /ok-1\s+MailTasks\.sendWelcome\s+1m ago\s+1/],
    ['5', /ID\s+TASK\s+FINISHED\s+ERROR/, /f-1\s+Reports\.daily\s+19m ago\s+RangeError/],
  ])('shows tab %s with its own columns', async (key, header, row) => {
    const { until, press } = show([fixtureBackend()]);
    await until('ready-1');
    press(key);
    await until(header, 'the tab header');
    await until(row, 'the tab row');
  });

  it("opens a failed task's detail with every field and the error's stack", async () => {
    const { frame, until, press, rendered } = show([fixtureBackend()]);
    await until('ready-1');
    press('5');
    await until('f-1');
    press(KEYS.enter);
    await until('Task f-1');
    expect(frame()).toMatch(/status\s+FAILED/);
    // The pane is shorter than the detail: scroll it line by line to the end,
    // then check every frame drawn on the way.
    const total = Number(/lines 1-\d+ of (\d+)/.exec(frame())?.[1]);
    expect(total).toBeGreaterThan(15);
    for (let first = 2; !frame().includes(`-${total} of ${total}`); first++) {
      press('j');
      await until(`lines ${first}-`, `line ${first} at the top`);
    }
    expect(frame()).toContain('at Reports.daily (reports.tasks.ts:12:11)');
    const seen = plain(rendered().frames.join('\n'));
    for (const field of [
      'id',
      'status',
      'task',
      'queue',
      'priority',
      'backend',
      'runAfter',
      'enqueuedAt',
      'startedAt',
      'lastAttemptedAt',
      'finishedAt',
      'attempts',
      'workerIds',
      'args',
      'errors',
    ]) {
      expect(seen).toMatch(new RegExp(`│ ${field}\\s`));
    }
    expect(seen).toMatch(/workerIds\s+box:41-0/);
    expect(seen).toContain('#1 RangeError');
    expect(seen).toContain('RangeError: day out of range');
    press(KEYS.escape);
    await waitFor(() => !frame().includes('Task f-1'), { what: 'the detail to close' });
  });

  it('shows a backend selector when there are several and switches on it', async () => {
    const { until, press } = show([
      fixtureBackend('main'),
      new FakeInspectorBackend('audit', ['trail']),
    ]);
    await until('Backends');
    await until(/› main/);
    press(KEYS.tab); // tasks -> backends
    press(KEYS.down);
    await until(/› trail/, 'the queue of the second backend');
    await until('no ready tasks in "trail"');
  });

  it('says so in plain words when the backend is unreachable, and recovers', async () => {
    const backend = fixtureBackend('main');
    backend.down = true;
    const { frame, until } = show([backend], 50);
    await until('Backend "main" did not answer: connect ECONNREFUSED');
    expect(frame()).not.toMatch(/\n\s+at /);
    backend.down = false;
    await until('ready-1');
    expect(frame()).not.toContain('did not answer');
  });

  it('shows a long reason whole over several status rows and still fits the screen', async () => {
    const backend = fixtureBackend('main');
    // The cause comes last in a backend's message: one status row would cut it off.
    backend.downReason =
      'Threadmill backend "main" cannot use Redis at redis://inspector:***@redis.internal.example.com:6379: ' +
      'WRONGPASS invalid username-password pair or user is disabled.';
    backend.down = true;
    const { frame, until } = show([backend], 50);
    await until('did not answer');
    const rows = frame().split('\n');
    const joined = rows.map((row) => row.trim()).join(' ');
    expect(joined).toContain(
      `Backend "main" did not answer: ${backend.downReason.replace(/\.$/, '')}`,
    );
    expect(rows.every((row) => row.length <= 100)).toBe(true);
    // Still one row short of the (24-row) terminal, with the key help at the bottom.
    expect(rows.length).toBeLessThanOrEqual(23);
    expect(rows[rows.length - 1]).toContain('q quit');
  });
});
