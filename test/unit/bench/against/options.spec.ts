import { againstConfig } from '../../../../bench/against/config';
import { DEFAULT_ROUNDS, parseAgainstArgs, UsageError } from '../../../../bench/against/options';
import { isAgainstRun } from '../../../../bench/run-args';

describe('bench --against: arguments', () => {
  it('is the A/B mode only when --against is given, in either spelling', () => {
    expect(isAgainstRun(['--against', 'HEAD~3'])).toBe(true);
    expect(isAgainstRun(['--quick', '--against=main'])).toBe(true);
    expect(isAgainstRun(['--quick', '--only', 'threadmill'])).toBe(false);
  });

  it('takes the ref and defaults to 5 rounds, 3 with --quick, the pool figure included', () => {
    expect(parseAgainstArgs(['--against', 'HEAD~3'])).toEqual({
      ref: 'HEAD~3',
      rounds: DEFAULT_ROUNDS.full,
      quick: false,
      pool: true,
    });
    expect(parseAgainstArgs(['--quick', '--against=main'])).toEqual({
      ref: 'main',
      rounds: DEFAULT_ROUNDS.quick,
      quick: true,
      pool: true,
    });
  });

  it('reads --rounds in either spelling, and --no-pool', () => {
    expect(parseAgainstArgs(['--against', 'v0.1.0', '--rounds', '4', '--no-pool'])).toMatchObject({
      rounds: 4,
      pool: false,
    });
    expect(parseAgainstArgs(['--rounds=2', '--against', 'abc1234'])).toMatchObject({
      ref: 'abc1234',
      rounds: 2,
    });
  });

  it.each([
    [['--against'], /--against needs a value/],
    [['--against', '--quick'], /--against needs a value/],
    [['--against='], /--against needs a value/],
    [['--rounds', '3'], /--against needs a value/],
    [['--against', 'a', '--against', 'b'], /given twice/],
    [['--against', 'a', '--rounds', '1'], /from 2 to 20, not 1/],
    [['--against', 'a', '--rounds', '21'], /not 21/],
    [['--against', 'a', '--rounds', '2.5'], /not 2.5/],
    [['--against', 'a', '--rounds', 'x'], /not x/],
    [['--against', 'a', '--only', 'bullmq'], /--only is not an option of the A\/B mode/],
    [['--against', 'a', '--out=x.json'], /--out is not an option/],
    [['--against', 'a', '--pool-only'], /--pool-only is not an option/],
    [['--against', 'a', 'b'], /unexpected argument b/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseAgainstArgs(argv)).toThrow(UsageError);
    expect(() => parseAgainstArgs(argv)).toThrow(message);
  });
});

describe('bench --against: sizes', () => {
  it('drains with 1 and 100 slots and the pool with one process of 100 threads', () => {
    const full = againstConfig({ ref: 'x', rounds: 5, quick: false, pool: true });
    expect(full.drainSlots).toEqual([1, 100]);
    expect(full.pool).toEqual({ processes: 1, threads: 100, tasks: 50_000 });
    const quick = againstConfig({ ref: 'x', rounds: 2, quick: true, pool: true });
    expect(quick.mode).toBe('quick');
    expect(quick.rounds).toBe(2);
    expect(quick.pool?.tasks).toBeLessThan(full.pool!.tasks);
  });

  it('has no pool figure with --no-pool', () => {
    expect(againstConfig({ ref: 'x', rounds: 3, quick: true, pool: false }).pool).toBeNull();
  });
});
