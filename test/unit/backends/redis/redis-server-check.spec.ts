import { parseInfo, serverProblem } from '../../../../lib/backends/redis/redis-server-check';

const INFO_SERVER = '# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\nos:Linux\r\n';

describe('the Redis server check', () => {
  it('reads INFO fields, whatever the line endings and section headers', () => {
    const fields = parseInfo(INFO_SERVER);
    expect(fields.get('redis_version')).toBe('7.0.15');
    expect(fields.get('redis_mode')).toBe('standalone');
    expect(fields.has('# Server')).toBe(false);
  });

  it('accepts Redis 7 and later with noeviction', () => {
    for (const version of ['7.0.0', '7.2.4', '8.0.1']) {
      expect(serverProblem({ version, policy: 'noeviction' }, 'a', 'redis://h', false)).toBeNull();
    }
  });

  it('refuses a Redis older than 7.0, naming its version and why', () => {
    const problem = serverProblem({ version: '6.2.14', policy: 'noeviction' }, 'a', 'h', false);
    expect(problem).toMatch(/needs Redis 7\.0 or later, and h is Redis 6\.2\.14/);
    expect(problem).toMatch(/#!lua/);
    expect(serverProblem({ version: '', policy: 'noeviction' }, 'a', 'h', true)).toMatch(
      /is Redis unknown/,
    );
  });

  it('refuses an evicting policy naming it, unless allowEviction is set', () => {
    for (const policy of ['allkeys-lru', 'volatile-ttl', 'allkeys-random']) {
      const problem = serverProblem({ version: '7.0.15', policy }, 'orders', 'h', false);
      expect(problem).toContain(`maxmemory-policy is ${policy}`);
      expect(problem).toMatch(/deletes keys/);
      expect(problem).toMatch(/allowEviction: true/);
      expect(serverProblem({ version: '7.0.15', policy }, 'orders', 'h', true)).toBeNull();
    }
  });
});
