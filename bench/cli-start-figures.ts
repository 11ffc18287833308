import { median } from './metrics';
import type { FigureRow, Target } from './report';
import type { CliStartSample } from './cli-start';
import type { RunnerResults } from './suite';

/** The keys of the CLI's start rows, for the page that explains them. */
export const CLI_START_ROW_KEYS = {
  result: 'cli.start.result',
  queuesList: 'cli.start.queuesList',
  node: 'cli.start.node',
  modules: 'cli.start.modules',
} as const;

/** The promise: a command that runs no task answers within a second of being typed. */
const CLI_START_TARGET: Target = {
  text: '< 1000 ms',
  check: (row) => (row.threadmill === null ? null : row.threadmill < 1000),
};

type Pick = (
  pickOne: (r: RunnerResults) => number | null,
) => Omit<FigureRow, 'key' | 'label' | 'unit' | 'better'>;

const medianOf =
  (field: keyof CliStartSample) =>
  (r: RunnerResults): number | null =>
    r.cliStarts.length === 0 ? null : median(r.cliStarts.map((sample) => sample[field]));

/**
 * The CLI's start: `result <id>` and `queues list` of the sample's CLI on
 * Redis, spawn to exit (the targets), and beside them what every start pays
 * before any of the CLI's own work (Node alone; Node loading the entry's
 * modules), the medians of the starts; Threadmill on Redis alone.
 */
export function cliStartRows(config: { cliStarts: number }, pick: Pick): FigureRow[] {
  const row = (
    key: string,
    label: string,
    field: keyof CliStartSample,
    target?: Target,
  ): FigureRow => ({
    key,
    label: `${label} (median of ${config.cliStarts})`,
    unit: 'ms',
    better: 'lower',
    ...pick(medianOf(field)),
    ...(target && { target }),
  });
  return [
    row(
      CLI_START_ROW_KEYS.result,
      'CLI `result <id>`, spawn to exit',
      'resultMs',
      CLI_START_TARGET,
    ),
    row(
      CLI_START_ROW_KEYS.queuesList,
      'CLI `queues list`, spawn to exit',
      'queuesListMs',
      CLI_START_TARGET,
    ),
    row(CLI_START_ROW_KEYS.node, 'CLI start: Node alone', 'nodeMs'),
    row(CLI_START_ROW_KEYS.modules, "CLI start: Node loading the entry's modules", 'modulesMs'),
  ];
}
