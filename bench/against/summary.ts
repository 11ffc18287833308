import { median } from '../metrics';
import { formatNumber, type Better } from '../report';

/** One figure's values, one per round for each build (index = round). */
export interface AbSeries {
  key: string;
  label: string;
  unit: string;
  better: Better;
  current: number[];
  ref: number[];
}

/** Median and range of some values. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

/**
 * - better / worse: current / ref fell on that side of 1 in every round;
 * - same: equal in every round (a count that did not change);
 * - noise: the rounds disagree, so this run cannot tell a change.
 * Every round agreeing happens by luck alone too, with the chance signTestP
 * gives (1 in 16 at 5 rounds): among the 15 figures of a run, one lone
 * better or worse is what two identical builds give; the table prints p
 * beside the verdict so that it reads as such.
 */
export type Verdict = 'better' | 'worse' | 'same' | 'noise';

export interface AbRow extends AbSeries {
  currentSpread: Spread | null;
  refSpread: Spread | null;
  /** current / ref of each round, the two measured one right after the other. */
  ratios: number[];
  ratio: Spread | null;
  /** Rounds in which the current tree did better than the ref. */
  currentAhead: number;
  /** Rounds in which it did worse (the rest were ties). */
  currentBehind: number;
  /** Two-sided sign test of ahead against behind (see signTestP). */
  p: number;
  verdict: Verdict | null;
}

export function spreadOf(values: readonly number[]): Spread | null {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return null;
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite) };
}

/**
 * The ratio is taken per round, not as the ratio of the two medians: the two
 * values of a round were measured a few seconds apart, so the machine's
 * drift over the run (tens of percent) mostly cancels in their ratio, and the
 * spread of the ratios is then the noise that is left.
 */
export function summarize(series: AbSeries): AbRow {
  const ratios: number[] = [];
  let currentAhead = 0;
  let currentBehind = 0;
  const rounds = Math.min(series.current.length, series.ref.length);
  for (let round = 0; round < rounds; round++) {
    const current = series.current[round];
    const ref = series.ref[round];
    if (!Number.isFinite(current) || !Number.isFinite(ref)) continue;
    if (current !== ref) {
      if (current > ref === (series.better === 'higher')) currentAhead++;
      else currentBehind++;
    }
    if (ref !== 0) ratios.push(current / ref);
    else if (current === 0) ratios.push(1);
  }
  const ratio = spreadOf(ratios);
  return {
    ...series,
    currentSpread: spreadOf(series.current),
    refSpread: spreadOf(series.ref),
    ratios,
    ratio,
    currentAhead,
    currentBehind,
    p: signTestP(currentAhead, currentBehind),
    verdict: ratio === null ? null : verdictOf(ratio, series.better),
  };
}

/**
 * The chance that two builds that do not differ split their rounds at least
 * as unevenly as `ahead` to `behind` (ties left out): a two-sided sign test,
 * which assumes nothing about how the figure's noise is distributed.
 */
export function signTestP(ahead: number, behind: number): number {
  const n = ahead + behind;
  if (n === 0) return 1;
  let tail = 0;
  let choose = 1; // C(n, i)
  for (let i = 0; i <= Math.min(ahead, behind); i++) {
    tail += choose;
    choose = (choose * (n - i)) / (i + 1);
  }
  return Math.min(1, (2 * tail) / 2 ** n);
}

function verdictOf(ratio: Spread, better: Better): Verdict {
  if (ratio.min === 1 && ratio.max === 1) return 'same';
  const up = ratio.min > 1;
  const down = ratio.max < 1;
  if (!up && !down) return 'noise';
  return up === (better === 'higher') ? 'better' : 'worse';
}

/** "5.21k (4.90k–5.60k)": the median, then the range unless it prints as one number. */
export function formatSpread(spread: Spread | null): string {
  if (spread === null) return '–';
  const [median, min, max] = [spread.median, spread.min, spread.max].map(formatNumber);
  return min === max ? median : `${median} (${min}–${max})`;
}

function formatRatio(ratio: Spread | null): string {
  if (ratio === null) return '–';
  const [median, min, max] = [ratio.median, ratio.min, ratio.max].map((n) => n.toFixed(3));
  return min === max ? `${median}×` : `${median}× (${min}–${max})`;
}

function formatVerdict(row: AbRow): string {
  if (row.verdict === null) return '–';
  const verdict =
    row.verdict === 'better' || row.verdict === 'worse' ? `**${row.verdict}**` : row.verdict;
  return `${verdict} (${row.currentAhead}/${row.ratios.length}, p ${formatP(row.p)})`;
}

function formatP(p: number): string {
  return p >= 0.995 ? '1' : p.toFixed(2);
}

/**
 * The A/B table in Markdown: per figure each build's median and range over
 * the rounds, current / ref (the median of the rounds' ratios and their
 * range), and the verdict with the rounds in which the current tree did better and
 * the sign test's p.
 */
export function renderAbTable(
  rows: readonly AbRow[],
  labels: { current: string; ref: string },
): string {
  const header = [
    'figure',
    labels.current,
    labels.ref,
    'current / ref',
    'verdict (current ahead, p)',
  ];
  const lines = rows.map((row) => [
    `${row.label} (${row.unit}, ${row.better} is better)`,
    formatSpread(row.currentSpread),
    formatSpread(row.refSpread),
    formatRatio(row.ratio),
    formatVerdict(row),
  ]);
  return [header, header.map(() => '---'), ...lines]
    .map((cells) => `| ${cells.join(' | ')} |`)
    .join('\n');
}
