/** A point of the plot, in the chart's SVG units. */
export interface PlotPoint {
  x: number;
  y: number;
}

/** How one series of a line chart is drawn. */
export interface SeriesMarks {
  /** The line through each run of two or more consecutive values ('' for none). */
  path: string;
  /**
   * A dot for each value with no value beside it: a line needs two points, so
   * without a dot a series of one value (a new app's first minute) or a value
   * between two gaps would draw nothing at all.
   */
  points: PlotPoint[];
}

/** The smallest 1, 2 or 5 times a power of ten at or above `value`. */
export function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** The marks of one series: gaps where a bucket has no value. */
export function seriesMarks(
  values: readonly (number | null)[],
  x: (i: number) => number,
  y: (v: number) => number,
): SeriesMarks {
  const known = (i: number): boolean => values[i] !== null && values[i] !== undefined;
  let path = '';
  const points: PlotPoint[] = [];
  values.forEach((value, i) => {
    if (value === null) return;
    const at = { x: x(i), y: y(value) };
    const joinsPrevious = known(i - 1);
    if (!joinsPrevious && !known(i + 1)) {
      points.push(at);
      return;
    }
    path += `${joinsPrevious ? 'L' : 'M'}${at.x.toFixed(1)} ${at.y.toFixed(1)}`;
  });
  return { path, points };
}
