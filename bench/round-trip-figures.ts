import { median } from './metrics';
import type { FigureRow } from './report';
import type { RunnerResults } from './suite';

/** The round-trip limit row's key, for the page that explains it. */
export const ROUND_TRIP_LIMIT_ROW_KEY = 'drain.inProcess.1.ofLimit';

/**
 * One repetition's share of the limit: the limit is one task per (bare round
 * trip + the scripts' own Redis time per task), so the share is the rate
 * times that time. Null without a bare round trip measured before it.
 */
function shareOfLimit(r: RunnerResults, rep: number): number | null {
  const sample = r.drain[1]?.[rep];
  const roundTripMicros = r.bareRoundTripMicros[rep];
  if (sample === undefined || roundTripMicros === undefined) return null;
  const perTaskMicros = roundTripMicros + sample.cost.scriptMicros / sample.tasks;
  return ((sample.tasks / sample.cost.seconds) * perTaskMicros) / 1e6;
}

/**
 * "drain at 1 slot, share of its round-trip limit": the median over the
 * repetitions; null for a runner without a 1-slot drain or a Redis (SQLite).
 * At one slot every library makes one round trip per task, so the drain
 * follows the host's round trip: this row says how near that limit each
 * library comes, measured in the same run. It is reported, not judged: the
 * 1-slot drain's own row is (ahead of both peers, see targets.ts), and
 * this share explains a miss there.
 */
export function roundTripLimitRow(
  label: string,
  pick: (
    pickOne: (r: RunnerResults) => number | null,
  ) => Omit<FigureRow, 'key' | 'label' | 'unit' | 'better'>,
): FigureRow {
  const share = (r: RunnerResults): number | null => {
    const shares = (r.drain[1] ?? [])
      .map((_, rep) => shareOfLimit(r, rep))
      .filter((value): value is number => value !== null);
    return shares.length === 0 ? null : median(shares);
  };
  return {
    key: ROUND_TRIP_LIMIT_ROW_KEY,
    label: `${label}: share of one task per (bare round trip and script time)`,
    unit: 'ratio',
    better: 'higher',
    ...pick(share),
  };
}
