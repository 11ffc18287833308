/** The Redis the run's global setup chose (REDIS_URL or its own redis-server). */
export function testRedisUrl(): string {
  const url = process.env.REDIS_URL;
  if (!url)
    throw new Error(
      'REDIS_URL is not set: run the suites through jest (global-setup starts a Redis).',
    );
  return url;
}
