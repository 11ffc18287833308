import type * as InkTestingLibrary from 'ink-testing-library' with { 'resolution-mode': 'import' };

import type { MemoryBackend } from '../../../lib/backends/memory/memory.backend';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { loadInkRuntime, type InkRuntime } from '../../../lib/inspector/ink.loader';
import { importEsm } from '../../../lib/utils/import-esm.util';
import { renderInspector } from '../../../lib/inspector/inspector.app';
import { InspectorStore } from '../../../lib/inspector/inspector.store';
import { atWallClock } from '../../helpers/clock';
import { assertEsmMode } from '../../helpers/esm-mode';
import { finishTogether, memoryBackend, outage, seed } from '../../helpers/memory-backend';
import { readyRecord, type ReadyRecordFields } from '../../helpers/ready-record';
import { waitFor } from '../../helpers/wait-for';

// Component tests: the real Ink renderer (loaded through the inspector's own
// ESM path) drawing into ink-testing-library's 100-column fake terminal.

const KEYS = { down: '\u001B[B', enter: '\r', tab: '\t', escape: '\u001B' };
const plain = (frame: string | undefined): string =>
  // eslint-disable-next-line no-control-regex -- ANSI escapes are what is stripped
  (frame ?? '').replace(/\u001B\[[0-9;?]*[A-Za-z]/g, '');

const minutesAgo = (m: number): Date => new Date(Date.now() - m * 60_000);

/**
 * A real MemoryBackend `alias` (queues default and emails) that lived through
 * the last forty minutes: in default, 1,234 ready, one running, one deferred,
 * 12,345 successful and 999 failed, so every count past a thousand is
 * abbreviated; the tasks each tab shows first are named below. Everything was
 * stored minutes ago, so the last two seconds saw nothing in or out.
 */
async function fixtureBackend(alias = 'default'): Promise<MemoryBackend> {
  const backend = memoryBackend({}, { alias, queues: ['default', 'emails'] });
  const task = (id: string, fields: ReadyRecordFields = {}): TaskRecord =>
    readyRecord(alias, { id, name: 'MailTasks.sendWelcome', args: ['user-1'], ...fields });
  const many = (count: number, prefix: string, enqueuedAt: Date): TaskRecord[] =>
    Array.from({ length: count }, (_, i) => task(`${prefix}-${i}`, { enqueuedAt }));
  // The histories, older than the tasks that head each tab.
  await finishTogether(backend, 'box:39-0', many(12_344, 'sent', minutesAgo(12)), {
    startedAt: minutesAgo(12),
    finishedAt: minutesAgo(10),
    result: { status: TaskResultStatus.SUCCESSFUL, returnValue: 'sent' },
  });
  await finishTogether(backend, 'box:39-1', many(998, 'bounced', minutesAgo(40)), {
    startedAt: minutesAgo(40),
    finishedAt: minutesAgo(39),
    result: {
      status: TaskResultStatus.FAILED,
      errors: [{ className: 'SmtpError', traceback: 'SmtpError: 550 mailbox unavailable' }],
    },
  });
  await seed(backend, [
    {
      ...task('run-1', { name: 'Mail.send', priority: 5, enqueuedAt: minutesAgo(4) }),
      status: TaskResultStatus.RUNNING,
      startedAt: minutesAgo(3),
      lastAttemptedAt: minutesAgo(3),
      workerIds: ['box:40-1'],
    },
    {
      ...task('ok-1', { enqueuedAt: minutesAgo(3) }),
      status: TaskResultStatus.SUCCESSFUL,
      startedAt: minutesAgo(2),
      lastAttemptedAt: minutesAgo(2),
      finishedAt: minutesAgo(1),
      workerIds: ['box:40-0'],
      returnValue: 'sent',
    },
    {
      ...task('f-1', { name: 'Reports.daily', enqueuedAt: minutesAgo(30) }),
      status: TaskResultStatus.FAILED,
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
    },
    task('ready-1', { enqueuedAt: minutesAgo(7) }),
    task('ready-2', { enqueuedAt: minutesAgo(6) }),
    task('later-1', {
      name: 'Billing.charge',
      enqueuedAt: minutesAgo(8),
      runAfter: new Date(Date.now() + 2 * 3_600_000 + 60_000),
    }),
  ]);
  // Behind ready-1 and ready-2 in the queue.
  const queuedAt = minutesAgo(5);
  await atWallClock(queuedAt, () => backend.tasks.enqueueMany(many(1_232, 'queued', queuedAt)));
  return backend;
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

  const show = (backends: MemoryBackend[], refreshIntervalMs = 2000) => {
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
    const { frame, until } = show([await fixtureBackend()]);
    await until('ready-2');
    await until('2 Ready 1.2k');
    const screen = frame();
    expect(screen).toContain('1 Running 1');
    expect(screen).toContain('3 Deferred 1');
    expect(screen).toContain('4 Successful 12k');
    expect(screen).toContain('5 Failed 999');
    expect(screen).toMatch(/default\s+1\.2k ▸ 1/);
    expect(screen).toMatch(/emails\s+0 ▸ 0/);
    expect(screen).toMatch(/ID\s+TASK\s+PRIORITY\s+ENQUEUED/);
    expect(screen).toMatch(/ready-1\s+MailTasks\.sendWelcome\s+0\s+7m ago/);
    // One page of the 1,234 was read, and a screenful of it is shown.
    expect(screen).toContain('1-14 of 100 listed (1.2k in Ready)');
    expect(screen).not.toContain('Backends');
    expect(screen).toContain('last 2 s: 0 in, 0 out (0 failed)');
  });

  it.each([
    ['1', /ID\s+TASK\s+PRIORITY\s+STARTED/, /run-1\s+Mail\.send\s+5\s+3m ago\s+1\s+box:40-1/],
    ['3', /ID\s+TASK\s+RUN AFTER\s+PRIORITY/, /later-1\s+Billing\.charge\s+in 2h/],
    ['4', /ID\s+TASK\s+FINISHED\s+ATTEMPTS/, /ok-1\s+MailTasks\.sendWelcome\s+1m ago\s+1/],
    ['5', /ID\s+TASK\s+FINISHED\s+ERROR/, /f-1\s+Reports\.daily\s+19m ago\s+RangeError/],
  ])('shows tab %s with its own columns', async (key, header, row) => {
    const { until, press } = show([await fixtureBackend()]);
    await until('ready-1');
    press(key);
    await until(header, 'the tab header');
    await until(row, 'the tab row');
  });

  it("opens a failed task's detail with every field and the error's stack", async () => {
    const { frame, until, press, rendered } = show([await fixtureBackend()]);
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
      await fixtureBackend('main'),
      memoryBackend({}, { alias: 'audit', queues: ['trail'] }),
    ]);
    await until('Backends');
    await until(/› main/);
    press(KEYS.tab); // tasks -> backends
    press(KEYS.down);
    await until(/› trail/, 'the queue of the second backend');
    await until('no ready tasks in "trail"');
  });

  it('says so in plain words when the backend is unreachable, and recovers', async () => {
    const backend = await fixtureBackend('main');
    const down = outage(backend, 'connect ECONNREFUSED 127.0.0.1:6379');
    const { frame, until } = show([backend], 50);
    await until('Backend "main" did not answer: connect ECONNREFUSED');
    expect(frame()).not.toMatch(/\n\s+at /);
    down.end();
    await until('ready-1');
    expect(frame()).not.toContain('did not answer');
  });

  it('shows a long reason whole over several status rows and still fits the screen', async () => {
    const backend = await fixtureBackend('main');
    // The cause comes last in a backend's message: one status row would cut it off.
    const reason =
      'Threadmill backend "main" cannot use Redis at redis://inspector:***@redis.internal.example.com:6379: ' +
      'WRONGPASS invalid username-password pair or user is disabled.';
    outage(backend, reason);
    const { frame, until } = show([backend], 50);
    await until('did not answer');
    const rows = frame().split('\n');
    const joined = rows.map((row) => row.trim()).join(' ');
    expect(joined).toContain(`Backend "main" did not answer: ${reason.replace(/\.$/, '')}`);
    expect(rows.every((row) => row.length <= 100)).toBe(true);
    // Still one row short of the (24-row) terminal, with the key help at the bottom.
    expect(rows.length).toBeLessThanOrEqual(23);
    expect(rows[rows.length - 1]).toContain('q quit');
  });
});
