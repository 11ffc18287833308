/** One test file's share of a run, as the slowest-suites reporter lists it. */
export interface SuiteTime {
  readonly file: string;
  readonly project: string;
  readonly ms: number;
}

/** The fields of a jest test file result that the reporter reads. */
export interface TimedTestFile {
  readonly testFilePath: string;
  readonly displayName?: { readonly name: string };
  readonly perfStats: { readonly start: number; readonly end: number };
}

export function slowestSuites(
  testResults: readonly TimedTestFile[],
  rootDir: string,
  count?: number,
): SuiteTime[];

export function formatSlowestSuites(
  suites: readonly SuiteTime[],
  totals: { readonly wallMs: number; readonly totalMs: number; readonly fileCount: number },
): string[];
