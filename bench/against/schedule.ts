/** The two builds of an A/B run: the working tree, and the ref it is compared with. */
export type Side = 'current' | 'ref';

export const SIDES: readonly Side[] = ['current', 'ref'];

/**
 * Which build goes first in a round: the current tree in even rounds, the
 * ref in odd ones. Both builds run in every round, one right after the
 * other, so a machine that drifts over minutes moves both alike; swapping
 * who goes first cancels what going first or second does (a colder or a
 * warmer machine, the other build's leftovers), which a fixed order would
 * charge to one build every time.
 */
export function roundOrder(round: number): readonly Side[] {
  return round % 2 === 0 ? SIDES : [SIDES[1], SIDES[0]];
}

/** Every measurement of one figure, in the order it is taken. */
export function interleave(rounds: number): { round: number; side: Side }[] {
  const order: { round: number; side: Side }[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const side of roundOrder(round)) order.push({ round, side });
  }
  return order;
}
