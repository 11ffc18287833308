import { interleave, roundOrder } from '../../../../bench/against/schedule';

describe('bench --against: order of the measurements', () => {
  it('runs both builds in every round, swapping which goes first', () => {
    expect(roundOrder(0)).toEqual(['current', 'ref']);
    expect(roundOrder(1)).toEqual(['ref', 'current']);
    expect(roundOrder(4)).toEqual(['current', 'ref']);
  });

  it('interleaves the rounds: A B, B A, A B', () => {
    expect(interleave(3)).toEqual([
      { round: 0, side: 'current' },
      { round: 0, side: 'ref' },
      { round: 1, side: 'ref' },
      { round: 1, side: 'current' },
      { round: 2, side: 'current' },
      { round: 2, side: 'ref' },
    ]);
  });

  it('gives each build the first place equally often over an even number of rounds', () => {
    const firsts = interleave(6).filter((_, i) => i % 2 === 0);
    expect(firsts.filter((m) => m.side === 'current')).toHaveLength(3);
    expect(firsts.filter((m) => m.side === 'ref')).toHaveLength(3);
  });
});
