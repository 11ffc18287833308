// Three layers, each in its own folder: unit (no I/O), integration (a real
// redis-server) and e2e (real processes, signals, HTTP and the TUI).
// ts-jest only transpiles (isolatedModules in tsconfig.json); `npm run typecheck`
// is the type gate, and `npm test` runs it first.
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
};

const base = {
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform,
  rootDir: __dirname,
};

/** @type {import('jest').Config} */
module.exports = {
  // A global option (Jest ignores it inside a project): generous for real
  // Redis and real processes on 2 shared cores; e2e files set their own.
  testTimeout: 30000,
  // Test files run in parallel workers: most of their time is spent waiting on
  // Redis, child processes and HTTP, so on 2 cores 3 workers finish sooner
  // than 2 (and 2 much sooner than 1). Nothing a test uses is shared with
  // another file: aliases, folders, tmux servers and ports are its own.
  maxWorkers: 3,
  // The ten slowest test files and the run's totals, printed after jest's own summary.
  reporters: ['default', '<rootDir>/test/setup/slowest-suites.reporter.js'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    {
      ...base,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.spec.ts'],
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
    },
    {
      ...base,
      displayName: 'chaos',
      testMatch: ['<rootDir>/test/chaos/**/*.chaos-spec.ts'],
    },
  ],
};
