import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { BOOT_MARKER_CLI, type CliOutcome } from '../helpers/cli-process';
import { cliStage } from '../helpers/cli-stage';
import { readyRecord } from '../helpers/ready-record';
import { decideCancel } from '../../lib/lifecycle/cancel-decision';

// What a command boots: the app's providers only for the commands that run or
// enqueue tasks, and Nest's start-up lines only with --verbose. The fixture's
// one task provider notes each construction of it in a file.

/** Lines Nest prints while it boots, which only --verbose shows. */
const START_UP_LINES = /Starting Nest application|dependencies initialized|Discovered \d+ task/;

describe('what a threadmill command boots (e2e)', () => {
  jest.setTimeout(60_000);
  const stage = cliStage(['default']);
  let dir: string;
  let marker: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-boot-'));
    marker = join(dir, 'constructed');
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs a command of the fixture, configured as `config` says. */
  const run = (args: readonly string[], config = 'static'): Promise<CliOutcome> =>
    stage.command(
      args,
      { THREADMILL_MARKER_FILE: marker, THREADMILL_FIXTURE_CONFIG: config },
      BOOT_MARKER_CLI,
    );
  const constructions = (): number =>
    existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0;

  describe("a command that runs no task never constructs the app's providers", () => {
    it.each([
      ['result', (id: string) => ['result', id], 0],
      ['cancel', (id: string) => ['cancel', id], 0],
      ['retry', (id: string) => ['retry', id], 0],
      ['remove', (id: string) => ['remove', id], 0],
      ['queues list', () => ['queues', 'list'], 0],
      ['queues pause', () => ['queues', 'pause', 'default'], 0],
      ['queues resume', () => ['queues', 'resume', 'default'], 0],
      ['queues limit', () => ['queues', 'limit', 'default', '--concurrency', '2'], 0],
      ['queues alone', () => ['queues'], 0],
      ['queues with an unknown subcommand', () => ['queues', 'frobnicate'], 2],
      ['schedules list', () => ['schedules', 'list'], 0],
      ['schedules remove', () => ['schedules', 'remove', 'nightly'], 1],
      ['--help', () => ['--help'], 0],
      ['a word that names no command', () => ['resutl'], 2],
    ])('%s', async (_what, args, code) => {
      // A cancelled task, which every command of the list can act on.
      const record = readyRecord(stage.alias, { name: 'marker.echo', args: ['hi'] });
      await stage.backend.tasks.enqueueMany([record]);
      const { id } = record;
      await stage.backend.control.cancel(id, decideCancel);
      expect(constructions()).toBe(0);
      const outcome = await run(args(id));
      expect(outcome).toMatchObject({ code });
      expect(constructions()).toBe(0);
    });

    it('configured by forRootAsync from a module of its own', async () => {
      const outcome = await run(['queues', 'list', '--json'], 'async');
      expect(outcome.code).toBe(0);
      expect(JSON.parse(outcome.stdout)).toEqual([
        expect.objectContaining({ queue: 'default', backend: stage.alias }),
      ]);
      expect(constructions()).toBe(0);
    });
  });

  it('enqueue constructs them, as it needs the task by name', async () => {
    const outcome = await run(['enqueue', 'marker.echo', '--args', '["hi"]']);
    expect(outcome.code).toBe(0);
    expect(constructions()).toBe(1);
  });

  it('boots the whole app when forRootAsync injects a provider only the app has, and says nothing of the first try', async () => {
    const outcome = await run(['queues', 'list', '--json'], 'app-provider');
    expect(outcome.code).toBe(0);
    expect(JSON.parse(outcome.stdout)).toHaveLength(1);
    expect(outcome.stderr).not.toMatch(/ERROR|UnknownDependencies/);
    expect(constructions()).toBe(1);
  });

  describe("Nest's start-up lines", () => {
    it('are not printed without --verbose, by a command that boots the app or not', async () => {
      const listed = await run(['queues', 'list']);
      const enqueued = await run(['enqueue', 'marker.echo']);
      for (const outcome of [listed, enqueued]) {
        expect(outcome.code).toBe(0);
        expect(outcome.stderr).not.toMatch(START_UP_LINES);
      }
    });

    it('are printed on stderr with --verbose, before or after the command', async () => {
      for (const args of [
        ['--verbose', 'queues', 'list'],
        ['enqueue', 'marker.echo', '--verbose'],
      ]) {
        const outcome = await run(args);
        expect(outcome.code).toBe(0);
        expect(outcome.stderr).toMatch(START_UP_LINES);
        expect(outcome.stdout).not.toMatch(START_UP_LINES);
      }
    });

    it('leave out no error of the boot: a bad backend option exits 1 saying which', async () => {
      const outcome = await run(['queues', 'list'], 'invalid');
      expect(outcome.code).toBe(1);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr).toContain('option "leaseTtl" must be a positive whole number');
      expect(outcome.stderr).not.toMatch(START_UP_LINES);
    });
  });
});
