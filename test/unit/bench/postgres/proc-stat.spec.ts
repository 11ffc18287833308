import { parseProcStat } from '../../../../bench/postgres/proc-stat';

/** A /proc/<pid>/stat line with the given command name, parent and CPU fields (14-17). */
function statLine(comm: string, parent: number, cpu: [number, number, number, number]): string {
  const middle = Array.from({ length: 9 }, (_, i) => String(i + 100)).join(' ');
  return `4242 (${comm}) S ${parent} ${middle} ${cpu.join(' ')} 20 0 1 0 12345 0 0\n`;
}

describe('parseProcStat', () => {
  it('reads the parent and the CPU of the process and of its reaped children', () => {
    expect(parseProcStat(statLine('postgres', 17, [120, 30, 900, 45]))).toEqual({
      parent: 17,
      own: 150,
      reapedChildren: 945,
    });
  });

  it('counts the fields from the last parenthesis, whatever the command name holds', () => {
    const line = statLine('postgres: bench (a b) idle', 3, [1, 2, 3, 4]);
    expect(parseProcStat(line)).toEqual({ parent: 3, own: 3, reapedChildren: 7 });
  });

  it('says what it got when the line is not a stat line', () => {
    expect(() => parseProcStat('4242 (x) S 1 2')).toThrow(/not a \/proc\/<pid>\/stat line/);
  });
});
