import { storedProgress } from '../../../lib/core/task-progress';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import {
  abbreviateCount,
  detailLines,
  fitColumns,
  queueLine,
  PAUSED_MARK,
  ratesLine,
  relativeTime,
  scrollOffset,
  tabLabel,
  tableHeader,
  tableRow,
  wrapLines,
} from '../../../lib/inspector/inspector.view';
import { leaseTo, memoryBackend, readyTask, seeded } from '../../helpers/memory-backend';
import { readyRecord, type ReadyRecordFields } from '../../helpers/ready-record';

const now = new Date('2026-11-30T03:10:00.000Z');

/** A task of backend `main` as enqueue takes it, enqueued ten minutes before `now`. */
const enqueued = (id: string, fields: ReadyRecordFields = {}): TaskRecord =>
  readyRecord('main', {
    id,
    name: 'MailTasks.sendWelcome',
    args: ['user-1'],
    enqueuedAt: new Date('2026-11-30T03:00:00.000Z'),
    ...fields,
  });

/** `record` as the backend holds it once it lived through its times (see seed). */
const stored = async (record: TaskRecord): Promise<TaskRecord> => (await seeded([record]))[0];

describe('inspector view', () => {
  describe('abbreviateCount', () => {
    it.each([
      [0, '0'],
      [7, '7'],
      [999, '999'],
      [1000, '1k'],
      [1234, '1.2k'],
      [9999, '9.9k'],
      [12_345, '12k'],
      [999_999, '999k'],
      [1_000_000, '1M'],
      [1_234_567, '1.2M'],
      [12_500_000, '12M'],
      [3_400_000_000, '3.4B'],
    ])('shows %d as %s (rounding down, never overstating)', (count, text) => {
      expect(abbreviateCount(count)).toBe(text);
    });
  });

  describe('relativeTime', () => {
    it.each([
      ['2026-11-30T03:10:00.400Z', 'now'],
      ['2026-11-30T03:09:48.000Z', '12s ago'],
      ['2026-11-30T03:05:00.000Z', '5m ago'],
      ['2026-11-30T00:00:00.000Z', '3h ago'],
      ['2026-11-28T03:10:00.000Z', '2d ago'],
      ['2026-11-30T03:15:00.000Z', 'in 5m'],
    ])('shows %s as %s', (iso, text) => {
      expect(relativeTime(new Date(iso), now)).toBe(text);
    });

    it('shows a dash for a time that is not set', () => {
      expect(relativeTime(null, now)).toBe('-');
    });
  });

  describe('fitColumns', () => {
    const titles = (segment: Parameters<typeof fitColumns>[0], width: number): string[] =>
      fitColumns(segment, width).map((c) => c.title);

    it.each([
      ['running', ['ID', 'TASK', 'PRIORITY', 'STARTED', 'ATTEMPTS', 'WORKERS']],
      ['ready', ['ID', 'TASK', 'PRIORITY', 'ENQUEUED', 'ATTEMPTS']],
      ['deferred', ['ID', 'TASK', 'RUN AFTER', 'PRIORITY', 'ENQUEUED']],
      ['successful', ['ID', 'TASK', 'FINISHED', 'ATTEMPTS', 'WORKERS']],
      ['failed', ['ID', 'TASK', 'FINISHED', 'ERROR', 'ATTEMPTS', 'WORKERS']],
    ] as const)('gives the %s tab its own columns on a wide terminal', (segment, expected) => {
      expect(titles(segment, 200)).toEqual(expected);
    });

    it('drops the least important columns first on a narrow terminal and fills the width exactly', () => {
      for (const width of [30, 50, 70, 90, 120, 200]) {
        const fitted = fitColumns('running', width);
        const used = fitted.reduce((sum, c) => sum + c.width, 0) + 2 * (fitted.length - 1);
        expect(used).toBe(width);
        expect(fitted.map((c) => c.title)).toEqual(expect.arrayContaining(['ID', 'TASK']));
      }
      expect(titles('running', 50)).toEqual(['ID', 'TASK', 'PRIORITY', 'STARTED']);
      expect(titles('running', 40)).toEqual(['ID', 'TASK', 'STARTED']);
      expect(titles('failed', 50)).toEqual(['ID', 'TASK', 'FINISHED', 'ERROR']);
    });

    it('shows the whole id when there is room, and a cut one when there is not', async () => {
      const record = await stored(enqueued('0b6a7c1e-5a2b-4c4d-9e8f-0123456789ab'));
      const wide = fitColumns('ready', 140);
      expect(tableRow(wide, record, now)).toContain('0b6a7c1e-5a2b-4c4d-9e8f-0123456789ab');
      const narrow = fitColumns('ready', 40);
      const row = tableRow(narrow, record, now);
      expect(row).toHaveLength(40);
      expect(row.startsWith('0b6a7c1…  MailTasks')).toBe(true);
    });
  });

  it('gives a whole id the room that short task names leave', async () => {
    const record = await stored(enqueued('0b6a7c1e-5a2b-4c4d-9e8f-0123456789ab', { name: 'a.b' }));
    const blind = fitColumns('ready', 90);
    const seeing = fitColumns('ready', 90, { records: [record], now });
    expect(tableRow(blind, record, now)).not.toContain(record.id);
    expect(tableRow(seeing, record, now)).toContain(record.id);
    expect(tableRow(seeing, record, now)).toHaveLength(90);
  });

  it('lines table rows up under the header', async () => {
    const columns = fitColumns('failed', 160);
    const header = tableHeader(columns);
    const failed = await stored({
      ...enqueued('t-1'),
      status: TaskResultStatus.FAILED,
      startedAt: new Date('2026-11-30T03:05:00.000Z'),
      lastAttemptedAt: new Date('2026-11-30T03:07:00.000Z'),
      finishedAt: new Date('2026-11-30T03:08:00.000Z'),
      workerIds: ['host:1-0', 'host:2-1'],
      errors: [{ className: 'BoomError', traceback: 'BoomError: boom\n    at x' }],
    });
    const row = tableRow(columns, failed, now);
    expect(row).toHaveLength(header.length);
    expect(row.indexOf('BoomError')).toBe(header.indexOf('ERROR'));
    expect(row).toContain('2m ago');
    expect(row).toContain('host:2-1, host:1-0');
  });

  it('labels tabs with their key and abbreviated count', () => {
    const counts = {
      ready: 1_234_567,
      running: 3,
      deferred: 0,
      successful: 12_000,
      failed: 999,
      cancelled: 2,
    };
    expect(tabLabel(0, 'running', counts)).toBe('1 Running 3');
    expect(tabLabel(1, 'ready', counts)).toBe('2 Ready 1.2M');
    expect(tabLabel(3, 'successful', counts)).toBe('4 Successful 12k');
    expect(tabLabel(4, 'failed', null)).toBe('5 Failed ?');
    expect(tabLabel(5, 'cancelled', counts)).toBe('6 Cancelled 2');
  });

  it('fits a queue line to its width with ready and running counts', () => {
    const counts = {
      ready: 1_200_000,
      running: 4,
      deferred: 0,
      successful: 0,
      failed: 0,
      cancelled: 0,
    };
    expect(queueLine('emails', counts, 20)).toBe('emails      1.2M ▸ 4');
    expect(queueLine('a-very-long-queue-name', counts, 20)).toHaveLength(20);
    expect(queueLine('emails', undefined, 12)).toBe('emails     ?');
    // A paused queue is marked before its counts.
    expect(queueLine('emails', counts, 20, true)).toBe(`emails    ${PAUSED_MARK} 1.2M ▸ 4`);
  });

  it("says a queue's throughput over the telemetry window", () => {
    expect(ratesLine({ intervalMs: 2000, ingress: 12, egress: 10, failed: 1 })).toBe(
      'last 2 s: 12 in, 10 out (1 failed)',
    );
    expect(ratesLine({ intervalMs: 2500, ingress: 12_345, egress: 0, failed: 0 })).toBe(
      'last 2.5 s: 12k in, 0 out (0 failed)',
    );
  });

  describe('wrapLines', () => {
    it('wraps at spaces, each line within the width', () => {
      expect(wrapLines('Redis said WRONGPASS invalid password', 12, 5)).toEqual([
        'Redis said',
        'WRONGPASS',
        'invalid',
        'password',
      ]);
      expect(wrapLines('short', 12, 3)).toEqual(['short']);
    });

    it('cuts a word longer than a line across lines', () => {
      expect(wrapLines('at redis://127.0.0.1:6379 now', 10, 5)).toEqual([
        'at',
        'redis://12',
        '7.0.0.1:63',
        '79 now',
      ]);
    });

    it('ends the last line with an ellipsis when the text needs more lines', () => {
      expect(wrapLines('one two three four five', 9, 2)).toEqual(['one two', 'three fo…']);
      expect(wrapLines('anything', 0, 2)).toEqual([]);
    });
  });

  it('scrolls only as far as keeps the selected row visible', () => {
    expect(scrollOffset(0, 0, 10, 100)).toBe(0);
    expect(scrollOffset(9, 0, 10, 100)).toBe(0);
    expect(scrollOffset(10, 0, 10, 100)).toBe(1);
    expect(scrollOffset(50, 45, 10, 100)).toBe(45);
    expect(scrollOffset(3, 45, 10, 100)).toBe(3);
    expect(scrollOffset(5, 0, 10, 6)).toBe(0);
  });

  describe('detailLines', () => {
    it('lists every field and each error with its class and full stack', async () => {
      const record = await stored({
        ...enqueued('t-9', { name: 'Reports.daily', queue: 'reports', priority: 7 }),
        status: TaskResultStatus.FAILED,
        startedAt: new Date('2026-11-30T03:01:00.000Z'),
        lastAttemptedAt: new Date('2026-11-30T03:02:00.000Z'),
        finishedAt: new Date('2026-11-30T03:03:00.000Z'),
        args: [{ day: '2026-11-29' }],
        workerIds: ['host:1-0', 'host:1-1'],
        errors: [
          {
            className: 'TypeError',
            traceback: 'TypeError: x is undefined\n    at Reports.daily (reports.ts:10:5)',
          },
          {
            className: 'AcknowledgementTimeout',
            traceback: 'AcknowledgementTimeout: not acknowledged\n    at reap',
          },
        ],
      });
      const text = detailLines(record, now).map((l) => l.text);
      const field = (label: string): string | undefined =>
        text.find((t) => t.startsWith(`${label} `));
      expect(field('id')).toMatch(/t-9$/);
      expect(field('status')).toMatch(/FAILED$/);
      expect(field('task')).toMatch(/Reports\.daily$/);
      expect(field('queue')).toMatch(/reports$/);
      expect(field('priority')).toMatch(/7$/);
      expect(field('backend')).toMatch(/main$/);
      expect(field('runAfter')).toMatch(/-$/);
      expect(field('enqueuedAt')).toMatch(/2026-11-30T03:00:00\.000Z \(10m ago\)$/);
      expect(field('startedAt')).toMatch(/03:01:00\.000Z \(9m ago\)$/);
      expect(field('lastAttemptedAt')).toMatch(/03:02:00\.000Z/);
      expect(field('finishedAt')).toMatch(/03:03:00\.000Z/);
      expect(field('attempts')).toMatch(/2$/);
      expect(field('workerIds')).toMatch(/host:1-0$/);
      expect(text).toContain(`${' '.repeat(16)}host:1-1`);
      expect(text.join('\n')).toContain('"day": "2026-11-29"');
      expect(field('returnValue')).toBeUndefined();
      expect(field('errors')).toMatch(/2$/);
      const lines = detailLines(record, now);
      expect(lines.filter((l) => l.tone === 'error').map((l) => l.text)).toEqual([
        '#1 TypeError',
        '#2 AcknowledgementTimeout',
      ]);
      expect(text).toContain('      at Reports.daily (reports.ts:10:5)');
      expect(text).toContain('  AcknowledgementTimeout: not acknowledged');
    });

    it('shows the return value of a successful task', async () => {
      const record = await stored({
        ...enqueued('t-1'),
        status: TaskResultStatus.SUCCESSFUL,
        startedAt: new Date('2026-11-30T03:01:00.000Z'),
        lastAttemptedAt: new Date('2026-11-30T03:01:00.000Z'),
        finishedAt: new Date('2026-11-30T03:02:00.000Z'),
        workerIds: ['host:1-0'],
        returnValue: { sent: true },
      });
      const text = detailLines(record, now).map((l) => l.text);
      expect(text.find((t) => t.startsWith('returnValue '))).toContain('{');
      expect(text.join('\n')).toContain('"sent": true');
      expect(text.find((t) => t.startsWith('unique key '))).toBeUndefined();
    });

    it('shows the progress a running task reported, and no line for one that reported none', async () => {
      const backend = memoryBackend();
      const [running] = await leaseTo(backend, 'host:1-0', readyTask('t-3'));
      const without = detailLines(await backend.tasks.getResult('t-3'), now).map((l) => l.text);
      expect(without.find((t) => t.startsWith('progress '))).toBeUndefined();
      const stored = storedProgress(1, JSON.stringify({ rows: 40, of: 90 }));
      await backend.leases.storeProgress([{ record: running, stored }]);
      const text = detailLines(await backend.tasks.getResult('t-3'), now).map((l) => l.text);
      expect(text.find((t) => t.startsWith('progress '))).toBe(`${'progress'.padEnd(16)}{`);
      expect(text).toContain(`${' '.repeat(16)}  "rows": 40,`);
      await backend.close();
    });

    it('shows the unique key of a task that has one, with its mode and ttl', async () => {
      const record = enqueued('t-2');
      const unique = { key: 'digest:7', mode: 'debounce', ttlMs: 5000 } as const;
      const text = detailLines(await stored({ ...record, task: { ...record.task, unique } }), now);
      expect(text.map((l) => l.text)).toContain(
        `${'unique key'.padEnd(16)}digest:7 (debounce, 5000 ms)`,
      );
    });
  });
});
