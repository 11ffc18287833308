import type * as InkTestingLibrary from 'ink-testing-library' with { 'resolution-mode': 'import' };

import type { MemoryBackend } from '../../../lib/backends/memory/memory.backend';
import type { StoredSchedule } from '../../../lib/core/ports/schedule-store.port';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { loadInkRuntime, type InkRuntime } from '../../../lib/inspector/ink.loader';
import {
  scheduleHeader,
  scheduleLine,
  scheduleRow,
  type InspectorScheduleRow,
} from '../../../lib/inspector/inspector-schedules';
import { renderInspector } from '../../../lib/inspector/inspector.app';
import { InspectorStore } from '../../../lib/inspector/inspector.store';
import { definitionText, resolveSchedule } from '../../../lib/schedule/schedule-definition';
import { importEsm } from '../../../lib/utils/import-esm.util';
import { assertEsmMode } from '../../helpers/esm-mode';
import { memoryBackend } from '../../helpers/memory-backend';
import { readyRecord } from '../../helpers/ready-record';
import { storeOf } from '../../helpers/schedule-race';
import { waitFor } from '../../helpers/wait-for';

const NOW = new Date('2026-03-01T12:00:00Z');

/** A stored schedule of task `reports.nightly` with these timing options. */
function stored(
  id: string,
  timing: { cron: string; timezone?: string } | { every: number },
  fields: Partial<StoredSchedule> = {},
): StoredSchedule {
  const definition = resolveSchedule(id, 'reports.nightly', timing, 'spec');
  return {
    id,
    definition: definitionText(definition),
    origin: 'runtime',
    app: null,
    paused: false,
    nextTickMs: NOW.getTime() + 5 * 60_000,
    lastTick: null,
    ...fields,
  };
}

/** A memory backend holding `nightly` (last tick's task READY) and a paused `gone` (its task expired). */
async function backendWithSchedules(): Promise<MemoryBackend> {
  const backend = memoryBackend();
  const store = storeOf(backend);
  const task = readyRecord(backend.alias, { id: 'schedule:nightly:1' });
  await backend.tasks.enqueue(task);
  await store.putSchedule(stored('nightly', { cron: '30 2 * * *', timezone: 'Europe/Berlin' }));
  await store.advanceSchedule('nightly', NOW.getTime() + 5 * 60_000, NOW.getTime() + 6 * 60_000, {
    tickMs: NOW.getTime(),
    taskId: task.id,
  });
  await store.putSchedule(stored('gone', { every: 60_000 }, { paused: true, nextTickMs: null }));
  await store.advanceSchedule('gone', 1, 2, null);
  return backend;
}

describe('inspector Schedules view', () => {
  describe('rows and lines', () => {
    it('says when a schedule ticks, its next and last tick and the last status', () => {
      const row = scheduleRow(
        stored(
          'nightly',
          { cron: '30 2 * * *', timezone: 'Europe/Berlin' },
          {
            lastTick: { tickMs: NOW.getTime() - 3_600_000, taskId: 't' },
          },
        ),
        TaskResultStatus.SUCCESSFUL,
      );
      expect(row).toEqual<InspectorScheduleRow>({
        id: 'nightly',
        task: 'reports.nightly',
        when: '30 2 * * * Europe/Berlin',
        paused: false,
        nextTickAt: new Date(NOW.getTime() + 5 * 60_000),
        lastTickAt: new Date(NOW.getTime() - 3_600_000),
        lastTaskId: 't',
        lastStatus: TaskResultStatus.SUCCESSFUL,
      });
      const line = scheduleLine(row, NOW, 100);
      expect(line).toHaveLength(100);
      expect(line).toMatch(
        /^nightly\s+reports\.nightly\s+30 2 \* \* \* Europe\/Berlin\s+in 5m\s+1h ago\s+SUCCESSFUL/,
      );
      expect(scheduleHeader(100)).toMatch(
        /^Schedule\s+Task\s+When\s+Next tick\s+Last tick\s+Last status/,
      );
    });

    it('shows a paused schedule and an interval, and drops Task and When on a narrow screen', () => {
      const row = scheduleRow(
        stored('fast', { every: 30_000 }, { paused: true, nextTickMs: null }),
        null,
      );
      expect(row.when).toBe('every 30s');
      expect(scheduleLine(row, NOW, 100)).toMatch(/paused\s+-\s+-\s*$/);
      const narrow = scheduleHeader(50);
      expect(narrow).toHaveLength(50);
      expect(narrow).not.toMatch(/Task|When/);
      expect(narrow).toMatch(/^Schedule\s+Next tick/);
    });
  });

  describe('store', () => {
    let store: InspectorStore | undefined;
    afterEach(() => store?.stop());

    it('on s lists the schedules with their last status, and on s again the tasks', async () => {
      const backend = await backendWithSchedules();
      store = new InspectorStore({ backends: [backend], refreshIntervalMs: 60_000 });
      store.start();
      const s = store;
      s.press({ input: 's' });
      expect(s.getState().view).toBe('schedules');
      await waitFor(() => s.getState().schedules, { what: 'the schedules read' });
      expect(
        s.getState().schedules?.map(({ id, paused, lastStatus }) => ({ id, paused, lastStatus })),
      ).toEqual([
        { id: 'gone', paused: true, lastStatus: null },
        { id: 'nightly', paused: false, lastStatus: TaskResultStatus.READY },
      ]);
      s.press({ input: 'j' });
      expect(s.getState().scheduleIndex).toBe(1);
      s.press({ input: 's' });
      expect(s.getState()).toMatchObject({ view: 'tasks', schedules: null });
    });

    it("says a last tick's task whose result is gone is expired", async () => {
      const backend = memoryBackend();
      await storeOf(backend).putSchedule(
        stored('nightly', { every: 60_000 }, { nextTickMs: 1_000 }),
      );
      await storeOf(backend).advanceSchedule('nightly', 1_000, 2_000, {
        tickMs: 1_000,
        taskId: 'schedule:nightly:1000',
      });
      store = new InspectorStore({ backends: [backend], refreshIntervalMs: 60_000 });
      store.start();
      const s = store;
      s.press({ input: 's' });
      await waitFor(() => s.getState().schedules, { what: 'the schedules read' });
      expect(s.getState().schedules?.[0].lastStatus).toBe('expired');
    });
  });

  describe('screen', () => {
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
    });

    it('draws the Schedules pane in place of the task table', async () => {
      store = new InspectorStore({ backends: [await backendWithSchedules()] });
      const rendered = testing.render(renderInspector(runtime, store));
      instance = rendered;
      store.start();
      const frame = (): string =>
        // eslint-disable-next-line no-control-regex -- ANSI escapes are what is stripped
        (rendered.lastFrame() ?? '').replace(/\u001B\[[0-9;?]*[A-Za-z]/g, '');
      await waitFor(() => frame().includes('Ready'), { what: 'the first frame' });
      rendered.stdin.write('s');
      await waitFor(() => frame().includes('Schedules (2)') && frame().includes('READY'), {
        what: `the Schedules pane; last frame:\n${frame()}`,
      });
      expect(frame()).toMatch(/nightly .*READY/);
      expect(frame()).toMatch(/gone .*paused/);
      expect(frame()).toContain('s schedules');
    });
  });
});
