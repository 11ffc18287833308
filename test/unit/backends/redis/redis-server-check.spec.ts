import { parseInfo } from '../../../../lib/backends/redis/redis-info';
import {
  persistenceOf,
  weakestPersistence,
} from '../../../../lib/backends/redis/redis-persistence';
import { serverProblem } from '../../../../lib/backends/redis/redis-server-check';
import { redisSnapshotsOnly } from '../../../../lib/core/store.messages';

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

  it('refuses a Redis that keeps nothing on disk only with requirePersistence', () => {
    const facts = { version: '7.0.15', policy: 'noeviction' };
    const none = { ...facts, persistence: 'none' as const };
    expect(serverProblem(none, 'orders', 'h', false)).toBeNull();
    expect(serverProblem(none, 'orders', 'h', false, true)).toMatch(
      /will not use Redis at h: it keeps nothing on disk .* requirePersistence is set/,
    );
    for (const persistence of ['log', 'snapshots'] as const) {
      expect(serverProblem({ ...facts, persistence }, 'orders', 'h', false, true)).toBeNull();
    }
  });

  it('reads persistence from INFO, and the snapshot schedule when CONFIG allows', () => {
    const info = (aof: 0 | 1) => `# Persistence\r\nloading:0\r\naof_enabled:${aof}\r\n`;
    expect(persistenceOf(info(1), '')).toEqual({ persistence: 'log', schedule: null });
    expect(persistenceOf(info(0), '3600 1 300 100')).toEqual({
      persistence: 'snapshots',
      schedule: '3600 1 300 100',
    });
    expect(persistenceOf(info(0), '')).toEqual({ persistence: 'none', schedule: '' });
    // CONFIG refused: it may snapshot, so it is not said to keep nothing.
    expect(persistenceOf(info(0), null)).toEqual({ persistence: 'snapshots', schedule: null });
  });

  it('holds a cluster to its least safe master', () => {
    const log = { persistence: 'log' as const, schedule: null };
    const none = { persistence: 'none' as const, schedule: '' };
    const snapshots = { persistence: 'snapshots' as const, schedule: '60 1' };
    expect(weakestPersistence([log, snapshots, none, log])).toBe(none);
    expect(weakestPersistence([log, snapshots])).toBe(snapshots);
    expect(weakestPersistence([])).toBeNull();
  });

  it('names the window a crash loses on a Redis that only snapshots', () => {
    expect(redisSnapshotsOnly('orders', 'h', '3600 1 300 100 60 10000')).toMatch(
      /RDB snapshots only \(AOF is off\), so a crash or restart loses every task .* since its last snapshot: it snapshots after 3600 s if 1 key\(s\) changed, after 300 s if 100, after 60 s if 10000, so up to 3600 s of work\. Turn on AOF/,
    );
    expect(redisSnapshotsOnly('orders', 'h', null)).toMatch(
      /since its last snapshot \(its snapshot schedule could not be read: CONFIG GET is not allowed here\)\./,
    );
  });
});
