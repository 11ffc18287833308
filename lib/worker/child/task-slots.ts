/**
 * A child's task slots (numbered from 1, the `-slot` of its worker ids) and
 * its recycling budget. An acquire reserves slots, and budget, while its call
 * is out, so the lanes never lease more than is free, and gives back what the
 * call did not fill.
 *
 * @internal
 */
export class TaskSlots {
  private readonly free: number[] = [];

  constructor(
    threads: number,
    /** Tasks this child may still lease before it recycles itself. */
    private budget: number,
  ) {
    for (let slot = 1; slot <= threads; slot++) this.free.push(slot);
  }

  get freeCount(): number {
    return this.free.length;
  }

  get remainingBudget(): number {
    return this.budget;
  }

  /** Up to `max` free slots, within the budget. */
  reserve(max: number): number[] {
    const slots = this.free.splice(0, Math.min(max, this.budget));
    this.budget -= slots.length;
    return slots;
  }

  /** Gives back what a call that leased only `used` of its `slots` did not fill; true when any. */
  unreserve(slots: readonly number[], used: number): boolean {
    if (used === slots.length) return false;
    this.budget += slots.length - used;
    this.free.unshift(...slots.slice(used));
    return true;
  }

  /** A slot whose task ended (or whose lease was given back) takes work again. */
  vacate(...slots: number[]): void {
    this.free.push(...slots);
  }
}
