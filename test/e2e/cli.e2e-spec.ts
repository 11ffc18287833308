import { randomUUID } from 'node:crypto';

import { MEMORY_CLI, untilOutput } from '../helpers/cli-process';
import { cliStage } from '../helpers/cli-stage';
import { freePort } from '../helpers/free-port';
import { parentCommands } from '../helpers/parent-commands';

// The exit-code table of the command line (0 success, 1 a command that ran and
// failed, 2 a usage error) on the real CLI, and what each command prints where:
// a command's result on stdout, everything else on stderr.

describe('the threadmill command line (e2e: exit codes and output)', () => {
  jest.setTimeout(60_000);
  const stage = cliStage();
  let alias: string;

  beforeEach(() => {
    alias = stage.alias;
  });

  /** Runs a command to its end; its only backend is the test's alias (no `--alias` needed). */
  const run = stage.command;

  describe('0: success', () => {
    it('enqueue prints only the new ids on stdout, result only the JSON', async () => {
      const enqueued = await run([
        'enqueue',
        'sample.echo',
        '--args',
        '["hi"]',
        '--count',
        '2',
        '--verbose',
      ]);
      expect(enqueued.code).toBe(0);
      const ids = enqueued.stdout.trim().split('\n');
      expect(ids).toHaveLength(2);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
      // The boot lines --verbose asked for went to stderr.
      expect(enqueued.stderr).toContain('Discovered');

      const shown = await run(['result', ids[0]]);
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({ id: ids[0], status: 'READY' });
    });

    it('reads --backend, the old name of --alias, with a deprecation warning', async () => {
      const listed = await run(['queues', 'list', '--backend', alias]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain('default');
      expect(listed.stderr).toContain(
        'DeprecationWarning: --backend is now --alias (same value); --backend is read until 0.5.0.',
      );
    });

    it('enqueue stores a name this app does not register, for the worker that does, and says so', async () => {
      const enqueued = await run(['enqueue', 'billing.invoice', '--queue', 'emails']);
      expect(enqueued.code).toBe(0);
      const [id] = enqueued.stdout.trim().split('\n');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(enqueued.stderr).toContain(
        'No @Task named "billing.invoice" is registered in this application: stored for the worker',
      );
      const shown = await run(['result', id]);
      expect(JSON.parse(shown.stdout)).toMatchObject({
        task: { name: 'billing.invoice', queue: 'emails' },
        status: 'READY',
      });
    });

    it('queues pause, list and resume: a message on stdout, the state in the table and the JSON', async () => {
      await run(['enqueue', 'sample.echo', '--count', '3']);
      const paused = await run(['queues', 'pause', 'default']);
      expect(paused).toMatchObject({
        code: 0,
        stdout: expect.stringContaining('Paused queue "default"'),
      });
      const table = await run(['queues', 'list']);
      expect(table.code).toBe(0);
      expect(
        table.stdout
          .trim()
          .split('\n')
          .map((line) => line.split(/\s+/)),
      ).toEqual([
        [
          'QUEUE',
          'STATE',
          'READY',
          'RUNNING',
          'DEFERRED',
          'SUCCESSFUL',
          'FAILED',
          'CANCELLED',
          'LIMITS',
        ],
        ['default', 'paused', '3', '0', '0', '0', '0', '0', '-'],
        ['emails', 'active', '0', '0', '0', '0', '0', '0', '-'],
      ]);
      // `queues` alone lists them.
      await expect(run(['queues'])).resolves.toMatchObject({ code: 0, stdout: table.stdout });
      const resumed = await run(['queues', 'resume', 'default', '--alias', alias]);
      expect(resumed).toMatchObject({ code: 0, stdout: expect.stringContaining('Resumed queue') });
      const json = await run(['queues', 'list', '--json']);
      expect(JSON.parse(json.stdout)).toEqual([
        {
          queue: 'default',
          alias,
          backend: alias,
          counts: { ready: 3, running: 0, deferred: 0, successful: 0, failed: 0, cancelled: 0 },
          state: { paused: false, limits: null },
        },
        expect.objectContaining({ queue: 'emails', state: { paused: false, limits: null } }),
      ]);
    });

    it("queues limit sets, shows and lifts a queue's limits; refuses no limit or a bad rate", async () => {
      const limited = await run([
        'queues',
        'limit',
        'emails',
        '--concurrency',
        '5',
        '--rate',
        '100/1000',
      ]);
      expect(limited).toMatchObject({
        code: 0,
        stdout: expect.stringContaining('concurrency=5,rate=100/1000ms'),
      });
      const table = await run(['queues', 'list']);
      expect(table.stdout).toMatch(/emails\s+active(\s+0){6}\s+concurrency=5,rate=100\/1000ms/);
      const json = await run(['queues', 'list', '--json']);
      expect(JSON.parse(json.stdout)[1].state.limits).toEqual({
        concurrency: 5,
        rateLimit: { max: 100, perMs: 1000 },
      });
      await expect(run(['queues', 'limit', 'emails'])).resolves.toMatchObject({ code: 2 });
      await expect(run(['queues', 'limit', 'emails', '--rate', '100'])).resolves.toMatchObject({
        code: 2,
      });
      await expect(run(['queues', 'limit', 'emails', '--clear'])).resolves.toMatchObject({
        code: 0,
        stdout: expect.stringContaining('Lifted the limits'),
      });
      expect(
        JSON.parse((await run(['queues', 'list', '--json'])).stdout)[1].state.limits,
      ).toBeNull();
    });

    it('retry and remove: a cancelled task back READY, then removed once final again', async () => {
      const [id] = (await run(['enqueue', 'sample.echo'])).stdout.trim().split('\n');
      await expect(run(['cancel', id])).resolves.toMatchObject({ code: 0 });
      const retried = await run(['retry', id]);
      expect(retried.code).toBe(0);
      expect(JSON.parse(retried.stdout)).toMatchObject({
        outcome: 'retried',
        result: { id, status: 'READY', finishedAt: null },
      });
      // Waiting again: not removed, and told to cancel first (exit 1).
      const refused = await run(['remove', id]);
      expect(refused).toMatchObject({ code: 1, stdout: '{"outcome":"not-final"}\n' });
      expect(refused.stderr).toContain('cancel it first');
      await run(['cancel', id]);
      await expect(run(['remove', id])).resolves.toMatchObject({
        code: 0,
        stdout: '{"outcome":"removed"}\n',
      });
      await expect(run(['result', id])).resolves.toMatchObject({ code: 1 });
    });

    it('retry and remove by queue and status print how many', async () => {
      const ids = (await run(['enqueue', 'sample.echo', '--count', '3'])).stdout.trim().split('\n');
      for (const id of ids) await run(['cancel', id]);
      const bulk = ['--queue', 'default', '--status', 'CANCELLED'];
      await expect(run(['retry', ...bulk])).resolves.toMatchObject({
        code: 0,
        stdout: '{"retried":3}\n',
      });
      await expect(run(['remove', ...bulk])).resolves.toMatchObject({
        code: 0,
        stdout: '{"removed":0}\n',
      });
      await expect(run(['retry', ids[0], ...bulk])).resolves.toMatchObject({ code: 2 });
      await expect(
        run(['retry', '--queue', 'default', '--status', 'SUCCESSFUL']),
      ).resolves.toMatchObject({ code: 2, stderr: expect.stringContaining('FAILED or CANCELLED') });
      await expect(
        run(['remove', '--queue', 'default', '--status', 'CANCELLED', '--task', 'sample.other']),
      ).resolves.toMatchObject({ code: 0, stdout: '{"removed":0}\n' });
    });

    it('enqueue --key prints the task that holds the key instead of a new one', async () => {
      const first = await run(['enqueue', 'sample.echo', '--args', '["a"]', '--key', 'user-42']);
      expect(first.code).toBe(0);
      const [id] = first.stdout.trim().split('\n');
      const again = await run(['enqueue', 'sample.echo', '--args', '["b"]', '--key', 'user-42']);
      expect(again.code).toBe(0);
      expect(again.stdout.trim()).toBe(id);
      const shown = await run(['result', id]);
      expect(JSON.parse(shown.stdout)).toMatchObject({
        args: ['a'],
        task: { unique: { key: 'user-42', mode: 'unfinished' } },
      });
    });

    it('--help', async () => {
      const help = await run(['--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('enqueue');
    });
  });

  describe('1: a command that ran and failed', () => {
    it('result of an id that does not exist', async () => {
      const id = randomUUID();
      const outcome = await run(['result', id]);
      expect(outcome.code).toBe(1);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr).toContain(
        `No task result with id "${id}" exists on backend "${alias}"`,
      );
    });

    it('enqueue while the store is unreachable, saying so', async () => {
      const port = await freePort();
      const outcome = await run(['enqueue', 'sample.echo'], {
        REDIS_URL: `redis://127.0.0.1:${port}`,
      });
      expect(outcome.code).toBe(1);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr).toContain(`error: Threadmill backend "${alias}" cannot use Redis`);
    });
  });

  describe('2: a usage error', () => {
    it('a word that names no command, without starting a pool', async () => {
      const outcome = await run(['resutl', 'abc']);
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toContain(
        'error: unknown command "resutl" (commands: "worker", "enqueue", "result", "cancel", "retry", "remove", "queues", "inspector", "schedules", "migrate").',
      );
      expect(outcome.stderr).not.toContain('Worker pool');
    });

    it.each([
      ['an unknown option', ['worker', '--bogus'], "error: unknown option '--bogus'"],
      ['an unknown option of a command', ['result', 'x', '--nope'], "unknown option '--nope'"],
      ['a missing argument', ['result'], "error: missing required argument 'id'"],
      ['an option without its value', ['enqueue', 'sample.echo', '--args'], 'argument missing'],
      ['an invalid option value', ['worker', '--processes', 'many'], '--processes expects'],
      ['a queue not configured', ['worker', '--queues', 'nope'], 'queue "nope" is not configured'],
      [
        'a backend not configured',
        ['result', 'x', '--alias', 'nope'],
        'backend "nope" is configured',
      ],
      ['a queue to pause not configured', ['queues', 'pause', 'nope'], 'has no queue "nope"'],
      ['a queue to resume not configured', ['queues', 'resume', 'nope'], 'has no queue "nope"'],
      ['a queue to pause not named', ['queues', 'pause'], "missing required argument 'queue'"],
      [
        'a backend of queues list not configured',
        ['queues', 'list', '--alias', 'nope'],
        'backend "nope" is configured',
      ],
      [
        '--alias and its deprecated name --backend naming different backends',
        ['queues', 'list', '--alias', 'one', '--backend', 'two'],
        '--alias "one" and --backend "two" name different backends',
      ],
      [
        'a unique key with a character ids cannot have',
        ['enqueue', 'sample.echo', '--key', 'a/b'],
        'unique key "a/b" is invalid',
      ],
    ])('%s', async (_what, args, message) => {
      const outcome = await run(args);
      expect(outcome.code).toBe(2);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr).toContain(message);
    });

    it.each(parentCommands().map((parent) => [parent.command, parent.subcommands] as const))(
      '%s with a word that names none of its subcommands',
      async (command, subcommands) => {
        const outcome = await run([command, 'frobnicate']);
        expect(outcome.code).toBe(2);
        expect(outcome.stdout).toBe('');
        const names = subcommands.map((name) => `"${name}"`).join(', ');
        expect(outcome.stderr).toContain(
          `${command}: unknown subcommand "frobnicate" (subcommands: ${names}).`,
        );
      },
    );

    it('worker on a MemoryBackend, whose tasks no child could see', async () => {
      const outcome = await run(['worker'], {}, MEMORY_CLI);
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toContain(
        'backend "memory" (MemoryBackend) keeps its tasks inside one process',
      );
      expect(outcome.stderr).not.toContain('Worker pool');
    });
  });

  describe('worker with its store unreachable', () => {
    it.each(['SIGTERM', 'SIGINT'] as const)(
      'says so at start and stops within 5 s of %s',
      async (signal) => {
        const port = await freePort();
        const cli = stage.start(['worker', '--processes', '1'], {
          REDIS_URL: `redis://127.0.0.1:${port}`,
        });
        await untilOutput(cli, new RegExp(`Backend "${alias}" does not answer`));
        const signalledAt = Date.now();
        cli.process.kill(signal);
        const { code } = await cli.exited;
        expect(Date.now() - signalledAt).toBeLessThan(5_000);
        expect(code).toBe(0);
      },
    );
  });
});
