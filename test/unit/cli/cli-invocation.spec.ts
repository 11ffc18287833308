import { readInvocation } from '../../../lib/cli/cli-invocation';

const line = (...words: string[]): string[] => ['node', 'worker.js', ...words];

describe('readInvocation', () => {
  it.each([
    ['no command (the default, worker)', [], true],
    ['worker', ['worker', '--processes', '2'], true],
    ["the worker's options alone", ['--processes', '2'], true],
    ['enqueue', ['enqueue', 'mail.send'], true],
    ['schedules add', ['schedules', 'add', 'nightly'], true],
    ['schedules run', ['schedules', 'run', 'nightly'], true],
    ['result', ['result', 'abc'], false],
    ['queues alone', ['queues'], false],
    ['queues list', ['queues', 'list', '--json'], false],
    ['cancel', ['cancel', 'abc'], false],
    ['retry in bulk', ['retry', '--queue', 'default', '--status', 'FAILED'], false],
    ['remove', ['remove', 'abc'], false],
    ['schedules list', ['schedules', 'list'], false],
    ['schedules alone', ['schedules'], false],
    ['inspector', ['inspector'], false],
    ['--help', ['--help'], false],
    ["a task command's help", ['enqueue', '-h'], false],
    ['a word that names no command', ['resutl', 'abc'], false],
  ])('%s: runs tasks is %s', (_what, words, runsTasks) => {
    expect(readInvocation(line(...words)).runsTasks).toBe(runsTasks);
  });

  it('takes --verbose off the line wherever it is, and only before --', () => {
    expect(readInvocation(line('--verbose', 'queues', 'list'))).toEqual({
      argv: line('queues', 'list'),
      verbose: true,
      runsTasks: false,
    });
    expect(readInvocation(line('result', 'abc', '--verbose'))).toMatchObject({
      argv: line('result', 'abc'),
      verbose: true,
    });
    expect(readInvocation(line('result', '--', '--verbose'))).toEqual({
      argv: line('result', '--', '--verbose'),
      verbose: false,
      runsTasks: false,
    });
  });

  it('with --verbose alone, runs the default command', () => {
    expect(readInvocation(line('--verbose'))).toEqual({
      argv: line(),
      verbose: true,
      runsTasks: true,
    });
  });
});
