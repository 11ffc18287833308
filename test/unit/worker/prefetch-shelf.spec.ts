import { Logger } from '@nestjs/common';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { ReleaseAndUnlease } from '../../../lib/worker/child/release-and-unlease';
import { LeaseLedger } from '../../../lib/worker/child/lease-ledger';
import { PrefetchShelf } from '../../../lib/worker/child/prefetch-shelf';
import { TaskSlots } from '../../../lib/worker/child/task-slots';
import { ChangeSignal } from '../../../lib/utils/change-signal.util';
import { leaseTo, memoryBackend, readyTask } from '../../helpers/memory-backend';
import { TempJournal } from '../../helpers/temp-journal';
import { waitFor } from '../../helpers/wait-for';

const LEASE_MS = 10_000;

/** A shelf of one slot and two places on a real MemoryBackend and journal, on a clock the test moves. */
function setupShelf() {
  const backend = memoryBackend({ leaseTtl: LEASE_MS });
  const journal = new TempJournal();
  const logger = new Logger('test');
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  const ledger = new LeaseLedger(journal.journal, logger);
  const slots = new TaskSlots(1, Number.POSITIVE_INFINITY, 2);
  const clock = { now: 1_000_000 };
  const shelf = new PrefetchShelf({
    backend,
    logger,
    slots,
    ledger,
    releaseAndUnlease: new ReleaseAndUnlease(backend, logger, ledger),
    changes: new ChangeSignal(),
    now: () => clock.now,
  });
  return { backend, journal, slots, clock, shelf, ledger };
}

describe('PrefetchShelf', () => {
  const journals: TempJournal[] = [];
  afterEach(() => journals.splice(0).forEach((journal) => journal.close()));

  it('starts the oldest first, one per free slot, journaled as started before it is handed out', async () => {
    const { backend, journal, slots, clock, shelf } = setupShelf();
    journals.push(journal);
    const leased = await leaseTo(backend, 'host:42-1', readyTask('a'), readyTask('b'));
    slots.reservePlaces();
    shelf.put(leased, 'host:42-1', clock.now, false);
    expect(journal.holding()).toEqual({ held: ['a', 'b'], unstarted: ['a', 'b'] });
    const [first, ...more] = shelf.startable();
    expect(more).toEqual([]);
    expect(first).toMatchObject({ slot: 1, batchWorkerId: 'host:42-1' });
    expect(first.record.id).toBe('a');
    expect(journal.holding().unstarted).toEqual(['b']);
    expect(slots.placesFree).toBe(1);
    expect(shelf.startable()).toEqual([]);
  });

  it('places a batch in its reserved slots, then in a slot free by now, and keeps the rest', async () => {
    const { backend, journal, slots, shelf } = setupShelf();
    journals.push(journal);
    slots.vacate(2);
    const leased = await leaseTo(
      backend,
      'host:42-1',
      readyTask('a'),
      readyTask('b'),
      readyTask('c'),
    );
    const reserved = slots.reserve(1);
    expect(slots.reservePlaces()).toBe(2);
    slots.unreserve(reserved, 3, 2);
    const starting = shelf.place(leased, 'host:42-1', reserved, false);
    expect(starting.map((task) => [task.record.id, task.slot])).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(shelf.size).toBe(1);
    expect(journal.holding().unstarted).toEqual(['c']);
    // b took a free slot, not a place: one place is free again.
    expect(slots.placesFree).toBe(1);
  });

  it('after a stop places a batch in its reserved slots only, and gives back the rest', async () => {
    const { backend, journal, slots, shelf } = setupShelf();
    journals.push(journal);
    slots.vacate(2);
    const leased = await leaseTo(backend, 'host:42-1', readyTask('a'), readyTask('b'));
    const reserved = slots.reserve(1);
    slots.reservePlaces();
    slots.unreserve(reserved, 2, 2);
    const starting = shelf.place(leased, 'host:42-1', reserved, true);
    expect(starting.map((task) => task.record.id)).toEqual(['a']);
    await waitForGiveBack(backend, 'b');
    expect(shelf.size).toBe(0);
    expect(slots.placesFree).toBe(2);
  });

  it('gives back instead of starting a task whose timeout no longer fits in what is left of its lease', async () => {
    const { backend, journal, slots, clock, shelf } = setupShelf();
    journals.push(journal);
    const long = { ...readyTask('long'), task: { ...readyTask('long').task, timeoutMs: 9_000 } };
    const leased = await leaseTo(backend, 'host:42-1', long, readyTask('short'));
    slots.reservePlaces();
    shelf.put(leased, 'host:42-1', clock.now, false);
    clock.now += 1_500;
    const starting = shelf.startable();
    expect(starting.map((task) => task.record.id)).toEqual(['short']);
    await waitForGiveBack(backend, 'long');
    expect(await backend.tasks.getResult('long')).toMatchObject({ workerIds: [] });
    expect(slots.placesFree).toBe(2);
  });

  it('sends back what waited a tenth of its lease, and what belongs to a paused queue', async () => {
    const { backend, journal, slots, clock, shelf } = setupShelf();
    journals.push(journal);
    const [old] = await leaseTo(backend, 'host:42-1', readyTask('old'));
    slots.reservePlaces();
    shelf.put([old], 'host:42-1', clock.now, false);
    clock.now += LEASE_MS / 10;
    const [young] = await leaseTo(backend, 'host:42-1', readyTask('young'));
    shelf.put([young], 'host:42-1', clock.now, false);
    await shelf.check();
    await waitForGiveBack(backend, 'old');
    expect(shelf.size).toBe(1);
    await backend.control.pauseQueue('default');
    await shelf.check();
    await waitForGiveBack(backend, 'young');
    expect(shelf.size).toBe(0);
    expect(slots.placesFree).toBe(2);
    expect(journal.holding()).toEqual({ held: [], unstarted: [] });
  });

  it('after a stop gives back at once what a late acquire leased for its places', async () => {
    const { backend, journal, slots, clock, shelf } = setupShelf();
    journals.push(journal);
    const leased = await leaseTo(backend, 'host:42-1', readyTask('late'));
    slots.reservePlaces();
    slots.unreserve([], 1, 2);
    shelf.put(leased, 'host:42-1', clock.now, true);
    await waitForGiveBack(backend, 'late');
    expect(shelf.size).toBe(0);
    expect(slots.placesFree).toBe(2);
  });
});

/** Resolves once `id` is READY again (the give-back is asynchronous). */
async function waitForGiveBack(
  backend: ReturnType<typeof memoryBackend>,
  id: string,
): Promise<void> {
  await waitFor(async () => (await backend.tasks.getResult(id)).status === TaskResultStatus.READY, {
    what: `${id} given back`,
  });
}
