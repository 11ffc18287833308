import { niceCeiling, seriesMarks } from './chart-geometry';
import { count, duration } from './format';

export interface Series {
  label: string;
  values: (number | null)[];
}

export interface ChartProps {
  title: string;
  /** What the chart measures, over which window, in which unit: shown under the title. */
  caption: string;
  /** What the values are: task counts per bucket, or milliseconds. */
  unit: 'tasks' | 'ms';
  series: Series[];
  start: Date;
  bucketMs: number;
  /** Bars for a single series of counts; lines otherwise. */
  bars?: boolean;
}

const WIDTH = 480;
const HEIGHT = 150;
const LEFT = 56;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 22;

function clock(date: Date): string {
  return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

function summary(props: ChartProps, label: (v: number) => string): string {
  const parts = props.series.map((series) => {
    const known = series.values.filter((v): v is number => v !== null);
    if (known.length === 0) return `${series.label}: none`;
    if (props.unit === 'tasks') {
      const total = known.reduce((a, b) => a + b, 0);
      return `${series.label}: ${count(total)} in all, at most ${count(Math.max(...known))} per bucket`;
    }
    const mean = known.reduce((a, b) => a + b, 0) / known.length;
    return `${series.label}: mean ${label(mean)}, highest ${label(Math.max(...known))}`;
  });
  return `${props.title}. ${parts.join('; ')}.`;
}

/** A small hand-drawn SVG chart over the buckets of the activity window. */
export function Chart(props: ChartProps) {
  const label = props.unit === 'ms' ? duration : count;
  const buckets = Math.max(1, ...props.series.map((s) => s.values.length));
  const highest = Math.max(0, ...props.series.flatMap((s) => s.values.filter((v) => v !== null)));
  const top = niceCeiling(props.unit === 'tasks' ? Math.max(2, highest) : highest);
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const step = plotWidth / buckets;
  const x = (i: number): number => LEFT + step * (i + 0.5);
  const y = (v: number): number => TOP + plotHeight * (1 - v / top);
  const end = new Date(props.start.getTime() + buckets * props.bucketMs);
  return (
    <figure class="chart">
      <figcaption>
        <div class="chart-head">
          <span class="chart-title">{props.title}</span>
          <span class="legend">
            {props.series.map((series, i) => (
              <span key={series.label} class={props.bars ? 'key bars' : `key s${i}`}>
                {series.label}
              </span>
            ))}
          </span>
        </div>
        <p class="chart-caption">{props.caption}</p>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary(props, label)}>
        {[0, 0.5, 1].map((fraction) => (
          <g key={fraction} class="grid">
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(top * fraction)} y2={y(top * fraction)} />
            <text x={LEFT - 6} y={y(top * fraction) + 4} text-anchor="end">
              {label(top * fraction)}
            </text>
          </g>
        ))}
        <text class="axis" x={LEFT} y={HEIGHT - 6}>
          {clock(props.start)}
        </text>
        <text class="axis" x={WIDTH - RIGHT} y={HEIGHT - 6} text-anchor="end">
          {clock(end)}
        </text>
        {props.bars
          ? props.series[0]?.values.map((value, i) =>
              value ? (
                <rect
                  key={i}
                  class="bar s0"
                  x={LEFT + step * i + step * 0.1}
                  width={Math.max(1, step * 0.8)}
                  y={y(value)}
                  height={TOP + plotHeight - y(value)}
                />
              ) : null,
            )
          : props.series.map((series, i) => (
              <LineMarks key={series.label} series={series} index={i} x={x} y={y} />
            ))}
      </svg>
    </figure>
  );
}

/** A series' line, and a dot for each value no line reaches. */
function LineMarks(props: {
  series: Series;
  index: number;
  x: (i: number) => number;
  y: (v: number) => number;
}) {
  const marks = seriesMarks(props.series.values, props.x, props.y);
  return (
    <g>
      {marks.path && <path class={`line s${props.index}`} d={marks.path} />}
      {marks.points.map((point) => (
        <circle
          key={point.x}
          class={`point s${props.index}`}
          cx={point.x.toFixed(1)}
          cy={point.y.toFixed(1)}
          r={3}
        />
      ))}
    </g>
  );
}
