import {
  formatSpread,
  renderAbTable,
  signTestP,
  summarize,
  type AbSeries,
} from '../../../../bench/against/summary';

function series(current: number[], ref: number[], better: AbSeries['better'] = 'higher'): AbSeries {
  return {
    key: 'k',
    label: 'drain 20k, 1 slot, in-process',
    unit: 'tasks/s',
    better,
    current,
    ref,
  };
}

describe('bench --against: ratio and spread', () => {
  it('takes each build’s median and range, and the ratio within each round', () => {
    const row = summarize(series([1100, 900, 1000], [1000, 800, 1000]));
    expect(row.currentSpread).toEqual({ median: 1000, min: 900, max: 1100 });
    expect(row.refSpread).toEqual({ median: 1000, min: 800, max: 1000 });
    expect(row.ratios).toEqual([1.1, 1.125, 1]);
    expect(row.ratio).toEqual({ median: 1.1, min: 1, max: 1.125 });
    expect(row.currentAhead).toBe(2);
  });

  it('pairs each round: drift that moves both builds alike does not show as a change', () => {
    // The machine got twice as fast between rounds; current is 5% ahead in each.
    const row = summarize(series([1050, 2100], [1000, 2000]));
    expect(row.ratio?.min).toBeCloseTo(1.05);
    expect(row.ratio?.max).toBeCloseTo(1.05);
    expect(row.verdict).toBe('better');
  });

  it('says better or worse only when every round agrees, whichever way the figure improves', () => {
    expect(summarize(series([1100, 1050], [1000, 1000])).verdict).toBe('better');
    expect(summarize(series([900, 950], [1000, 1000])).verdict).toBe('worse');
    expect(summarize(series([1100, 950], [1000, 1000])).verdict).toBe('noise');
    expect(summarize(series([0.9, 0.8], [1, 1], 'lower')).verdict).toBe('better');
    expect(summarize(series([1.2, 1.1], [1, 1], 'lower')).verdict).toBe('worse');
    expect(summarize(series([0.2, 0.2], [0.2, 0.2], 'lower')).verdict).toBe('same');
  });

  it('counts a round as tied, neither ahead nor behind, when both builds gave the same value', () => {
    const row = summarize(series([0.0102, 0.0101, 0.0103], [0.0102, 0.0102, 0.0102], 'lower'));
    expect(row.currentAhead).toBe(1);
    expect(row.currentBehind).toBe(1);
    expect(row.verdict).toBe('noise');
  });

  it('gives the sign test’s p: how often identical builds split the rounds as unevenly', () => {
    expect(signTestP(0, 0)).toBe(1);
    expect(signTestP(2, 0)).toBe(0.5);
    expect(signTestP(5, 0)).toBe(0.0625);
    expect(signTestP(0, 6)).toBe(0.03125);
    expect(signTestP(4, 1)).toBe(0.375);
    expect(signTestP(3, 3)).toBe(1);
    expect(summarize(series([6, 7, 8, 9, 10], [5, 5, 5, 5, 5])).p).toBe(0.0625);
  });

  it('has no ratio for a round whose ref value is 0, unless both are', () => {
    expect(summarize(series([0, 0], [0, 0], 'lower')).verdict).toBe('same');
    const row = summarize(series([1, 0], [0, 0], 'lower'));
    expect(row.ratios).toEqual([1]);
  });

  it('leaves out rounds a build has no value for', () => {
    const row = summarize(series([1000, Number.NaN], [1000, 1000]));
    expect(row.ratios).toEqual([1]);
    expect(row.currentSpread).toEqual({ median: 1000, min: 1000, max: 1000 });
    expect(summarize(series([], [])).verdict).toBeNull();
  });
});

describe('bench --against: the table', () => {
  it('prints both builds, the ratio with its range and the verdict with the rounds ahead', () => {
    const table = renderAbTable(
      [
        summarize(series([5200, 4900, 5600], [5000, 5000, 5100])),
        summarize({
          ...series([0.0102, 0.0102], [0.0102, 0.0102], 'lower'),
          label: 'round trips per task, 100 slots',
          unit: 'count',
        }),
      ],
      { current: 'current (abc1234)', ref: 'HEAD~3 (def5678)' },
    );
    expect(table.split('\n')).toEqual([
      '| figure | current (abc1234) | HEAD~3 (def5678) | current / ref | verdict (current ahead, p) |',
      '| --- | --- | --- | --- | --- |',
      '| drain 20k, 1 slot, in-process (tasks/s, higher is better) | 5200 (4900–5600) | 5000 (5000–5100) | 1.040× (0.980–1.098) | noise (2/3, p 1) |',
      '| round trips per task, 100 slots (count, lower is better) | 0.010 | 0.010 | 1.000× | same (0/2, p 1) |',
    ]);
  });

  it('marks a change in bold', () => {
    const table = renderAbTable([summarize(series([900, 950], [1000, 1000]))], {
      current: 'a',
      ref: 'b',
    });
    expect(table).toContain('| 0.925× (0.900–0.950) | **worse** (0/2, p 0.50) |');
  });
});

describe('bench --against: numbers in the table', () => {
  it('prints a range only when its ends print differently', () => {
    expect(formatSpread({ median: 4.291, min: 4.29, max: 4.293 })).toBe('4.29');
    expect(formatSpread({ median: 5200, min: 4900, max: 5600 })).toBe('5200 (4900–5600)');
    expect(formatSpread(null)).toBe('–');
  });
});
