import { TaskSlots } from '../../../lib/worker/child/task-slots';

describe('TaskSlots', () => {
  it('reserves prefetch places beside the slots, within the budget, and takes back what a call left unfilled', () => {
    const slots = new TaskSlots(2, 5, 2);
    expect(slots.reserve(2)).toEqual([1, 2]);
    expect(slots.reservePlaces()).toBe(2);
    expect(slots.remainingBudget).toBe(1);
    // Three leased: both slots and one place filled; the other place comes back.
    expect(slots.unreserve([1, 2], 3, 2)).toBe(true);
    expect(slots.placesFree).toBe(1);
    expect(slots.remainingBudget).toBe(2);
    // One leased for two slots and one place: a slot and the place come back.
    slots.vacate(1, 2);
    expect(slots.reserve(2)).toEqual([1, 2]);
    expect(slots.reservePlaces()).toBe(0);
    expect(slots.unreserve([1, 2], 1, 0)).toBe(true);
    expect(slots.freeCount).toBe(1);
  });

  it('has no places without --prefetch, and spends no more budget than it has', () => {
    const none = new TaskSlots(1, Number.POSITIVE_INFINITY);
    expect(none.reservePlaces()).toBe(0);
    const tight = new TaskSlots(1, 2, 3);
    expect(tight.reserve(1)).toEqual([1]);
    expect(tight.reservePlaces()).toBe(1);
    expect(tight.remainingBudget).toBe(0);
  });

  it('hands a free slot to a waiting task and takes places back as their tasks leave', () => {
    const slots = new TaskSlots(1, 10, 1);
    expect(slots.reservePlaces()).toBe(1);
    expect(slots.claim()).toBe(1);
    expect(slots.claim()).toBeUndefined();
    slots.vacatePlaces(1);
    expect(slots.placesFree).toBe(1);
  });
});
