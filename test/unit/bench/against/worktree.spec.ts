import { sameDependencies } from '../../../../bench/against/worktree';

describe('bench --against: reusing node_modules', () => {
  const manifest = {
    version: '0.2.0',
    scripts: { build: 'nest build' },
    dependencies: { ioredis: '^5.8.0' },
    devDependencies: { jest: '^30.2.0', typescript: '~5.9.3' },
  };

  it('links node_modules when only the version, the scripts or the key order differ', () => {
    expect(
      sameDependencies(manifest, {
        version: '0.1.0',
        scripts: {},
        dependencies: { ioredis: '^5.8.0' },
        devDependencies: { typescript: '~5.9.3', jest: '^30.2.0' },
      }),
    ).toBe(true);
  });

  it('installs when a dependency was added, removed or changed, peers and overrides included', () => {
    const changed = (patch: object) => sameDependencies(manifest, { ...manifest, ...patch });
    expect(changed({ dependencies: { ioredis: '^5.9.0' } })).toBe(false);
    expect(changed({ dependencies: {} })).toBe(false);
    expect(changed({ devDependencies: { ...manifest.devDependencies, bullmq: '^6.7.0' } })).toBe(
      false,
    );
    expect(changed({ peerDependencies: { rxjs: '^7.1.0' } })).toBe(false);
    expect(changed({ overrides: { glob: '^10' } })).toBe(false);
  });
});
