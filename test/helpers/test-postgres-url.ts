/** The Postgres the run's global setup chose (PG_URL or its own private cluster). */
export function testPostgresUrl(): string {
  const url = process.env.PG_URL;
  if (!url)
    throw new Error(
      'PG_URL is not set: run the suites through jest (global-setup starts a Postgres).',
    );
  return url;
}
