import { niceCeiling, seriesMarks } from '../../../lib/dashboard/ui/chart-geometry';

// Scales as simple as the assertions: bucket i at x = 10 i, value v at y = 100 - v.
const x = (i: number): number => 10 * i;
const y = (v: number): number => 100 - v;

describe('seriesMarks', () => {
  it("draws a dot for a series with one value, as after a new app's first tasks", () => {
    const values = [...Array<null>(59).fill(null), 42];
    expect(seriesMarks(values, x, y)).toEqual({ path: '', points: [{ x: 590, y: 58 }] });
  });

  it('draws a dot for a lone value of 0, on the axis', () => {
    expect(seriesMarks([0], x, y)).toEqual({ path: '', points: [{ x: 0, y: 100 }] });
  });

  it('joins consecutive values and dots each value between gaps', () => {
    expect(seriesMarks([5, null, 10, 20, null, null, 30], x, y)).toEqual({
      path: 'M20.0 90.0L30.0 80.0',
      points: [
        { x: 0, y: 95 },
        { x: 60, y: 70 },
      ],
    });
  });

  it('draws one line and no dot for a series with no gap', () => {
    expect(seriesMarks([1, 2, 3], x, y)).toEqual({
      path: 'M0.0 99.0L10.0 98.0L20.0 97.0',
      points: [],
    });
  });

  it('draws nothing for a series with no value', () => {
    expect(seriesMarks([null, null], x, y)).toEqual({ path: '', points: [] });
    expect(seriesMarks([], x, y)).toEqual({ path: '', points: [] });
  });
});

describe('niceCeiling', () => {
  it.each([
    [0, 1],
    [1, 1],
    [3, 5],
    [42, 50],
    [120, 200],
    [7_000, 10_000],
  ])('rounds %p up to %p', (value, ceiling) => {
    expect(niceCeiling(value)).toBe(ceiling);
  });
});
