import Database from 'better-sqlite3';

import { SqliteListingStatements } from '../../../../lib/backends/sqlite/sqlite-listing-statements';
import { migrate } from '../../../../lib/backends/sqlite/sqlite-schema';

/**
 * The operators' reads stay fast with a million tasks waiting because each
 * is one index range: what SQLite's planner says it does with each
 * statement, checked instead of a timing.
 */
describe('SqliteListingStatements query plans', () => {
  let db: Database.Database;
  let statements: SqliteListingStatements;

  beforeAll(() => {
    db = new Database(':memory:');
    migrate(db);
    statements = new SqliteListingStatements(db);
  });

  afterAll(() => db.close());

  const params = {
    alias: 'a',
    queue: 'q',
    now: 1,
    name: 'n',
    rows: 10,
    score: 1,
    tie: 1,
    status: 'SUCCESSFUL',
    since: 0,
    start: 0,
    end: 1,
    from: 0,
    to: 1,
    bucketMs: 1000,
    limit: 5,
  };
  const plan = (statement: { source: string }): string =>
    db
      .prepare<[typeof params], { detail: string }>(`EXPLAIN QUERY PLAN ${statement.source}`)
      .all(params)
      .map((row) => row.detail)
      .join(' | ');

  it.each([
    ['ready', 'threadmill_tasks_ready', 'score'],
    ['running', 'threadmill_tasks_running', 'lease_until'],
    ['deferred', 'threadmill_tasks_deferred', 'run_at'],
  ] as const)(
    'pages %s tasks from a cursor through ranges of their index, with no sort',
    (state, index, column) => {
      const { first, sameScore, after } = statements.pageTasks[state];
      const search = `SEARCH threadmill_tasks USING INDEX ${index} (alias=? AND queue=?`;
      expect(plan(first)).toBe(`${search})`);
      expect(plan(sameScore)).toBe(`${search} AND ${column}=? AND seq>?)`);
      expect(plan(after)).toBe(`${search} AND ${column}>?)`);
    },
  );

  it('pages finished tasks from a cursor through ranges of the history index', () => {
    const { sameScore, after } = statements.pageResults;
    const search =
      'SEARCH threadmill_results USING INDEX threadmill_results_history (alias=? AND queue=? AND status=?';
    expect(plan(sameScore)).toMatch(`${search} AND finished_at=?)`);
    expect(plan(after)).toMatch(`${search} AND finished_at>? AND finished_at<?)`);
    for (const statement of [sameScore, after]) {
      expect(plan(statement)).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
    }
  });

  it('counts activity per bucket within one range of a covering index or primary key each', () => {
    expect(plan(statements.ingressBuckets)).toMatch(
      /SEARCH threadmill_ingress_counts USING PRIMARY KEY \(alias=\? AND queue=\? AND second>\? AND second<\?\)/,
    );
    expect(plan(statements.resultBuckets)).toMatch(
      /SEARCH threadmill_results USING COVERING INDEX threadmill_results_history \(alias=\? AND queue=\? AND status=\? AND finished_at>\? AND finished_at<\?\)/,
    );
    expect(plan(statements.sampleResults)).toMatch(
      /SEARCH threadmill_results USING INDEX threadmill_results_history/,
    );
  });
});
