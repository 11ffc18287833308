import { appendFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { HeldJournal } from '../../../lib/worker/held-journal';
import { TempJournal } from '../../helpers/temp-journal';

describe('HeldJournal', () => {
  const temps: TempJournal[] = [];
  const temp = (): TempJournal => {
    const journal = new TempJournal();
    temps.push(journal);
    return journal;
  };
  afterEach(() => temps.splice(0).forEach((journal) => journal.close()));

  it('reads back what is held: ids in, ids out, any id a task may have', () => {
    const { journal, path } = temp();
    const odd = ['with space', 'new\nline', '"quoted"', 'ü'];
    journal.hold(['a', 'b', ...odd]);
    journal.forget(['a', 'not-held']);
    journal.hold(['c']);
    expect(HeldJournal.read(path).sort()).toEqual(['b', 'c', ...odd].sort());
  });

  it('writes a release with the next hold, and what still waits on close: one write per batch', () => {
    const { journal, path } = temp();
    journal.hold(['a', 'b']);
    journal.forget(['a']);
    // Not written yet: read now, the journal still names a (the pool would find it stored).
    expect(readFileSync(path, 'utf8')).toBe('+["a","b"]\n');
    journal.hold(['c']);
    expect(readFileSync(path, 'utf8')).toBe('+["a","b"]\n-["a"]\n+["c"]\n');
    journal.forget(['b', 'c']);
    journal.close();
    expect(HeldJournal.read(path)).toEqual([]);
  });

  it('tells prefetched ids that never started from started ones', () => {
    const { journal, path } = temp();
    journal.hold(['a'], ['b', 'c', 'd']);
    journal.started(['b']);
    journal.forget(['d']);
    journal.hold(['e']);
    expect(readFileSync(path, 'utf8')).toBe('+["a"]\n~["b","c","d"]\n>["b"]\n-["d"]\n+["e"]\n');
    const { held, unstarted } = HeldJournal.readHolding(path);
    expect(held.sort()).toEqual(['a', 'b', 'c', 'e']);
    expect(unstarted).toEqual(['c']);
    expect(HeldJournal.read(path).sort()).toEqual(['a', 'b', 'c', 'e']);
  });

  it('writes a start at once, with the releases that waited: it must be on disk before the task runs', () => {
    const { journal, path } = temp();
    journal.hold([], ['a', 'b']);
    journal.forget(['a']);
    journal.started(['b', 'not-waiting']);
    expect(readFileSync(path, 'utf8')).toBe('~["a","b"]\n-["a"]\n>["b"]\n');
    expect(HeldJournal.readHolding(path)).toEqual({ held: ['b'], unstarted: [] });
  });

  it('keeps which ids never started through a compaction', () => {
    const { journal, path } = temp();
    const batch = Array.from({ length: 50 }, (_, i) => `task-${i.toString().padStart(30, '0')}`);
    journal.hold([], ['waiting']);
    for (let round = 0; round < 200; round++) {
      const ids = batch.map((id) => `${round}-${id}`);
      journal.hold([], ids);
      journal.started(ids);
      if (round < 199) journal.forget(ids);
    }
    expect(statSync(path).size).toBeLessThan(300 * 1024);
    const { held, unstarted } = HeldJournal.readHolding(path);
    expect(held.sort()).toEqual([...batch.map((id) => `199-${id}`), 'waiting'].sort());
    expect(unstarted).toEqual(['waiting']);
  });

  it('reads nothing where no journal was written', () => {
    const { dir } = temp();
    expect(HeldJournal.read(join(dir, 'never.held'))).toEqual([]);
  });

  it('skips a line cut short by a death inside the write, and reads on past a damaged one', () => {
    const { journal, path } = temp();
    journal.hold(['a', 'b']);
    appendFileSync(path, '-["a"');
    expect(HeldJournal.read(path).sort()).toEqual(['a', 'b']);
    appendFileSync(path, '\n+["c"]\n');
    expect(HeldJournal.read(path).sort()).toEqual(['a', 'b', 'c']);
  });

  it('opens on its first write, and makes its folder again if something removed it', () => {
    const { journal, path, dir } = temp();
    expect(existsSync(path)).toBe(false);
    rmSync(dir, { recursive: true });
    journal.hold(['a']);
    expect(HeldJournal.read(path)).toEqual(['a']);
  });

  it('throws when it cannot write, for the child to report', () => {
    const { dir } = temp();
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, '');
    const journal = new HeldJournal(join(blocker, 'child.held'));
    expect(() => journal.hold(['a'])).toThrow();
    journal.close();
  });

  it('compacts itself to the ids still held, so a busy child’s journal stays small', () => {
    const { journal, path } = temp();
    const batch = Array.from({ length: 50 }, (_, i) => `task-${i.toString().padStart(30, '0')}`);
    for (let round = 0; round < 200; round++) {
      const ids = batch.map((id) => `${round}-${id}`);
      journal.hold(ids);
      if (round < 199) journal.forget(ids);
    }
    // 200 batches of about 1.8 kB each way were appended (over 700 kB); far less is on disk.
    expect(statSync(path).size).toBeLessThan(300 * 1024);
    expect(HeldJournal.read(path)).toEqual(batch.map((id) => `199-${id}`));
    HeldJournal.remove(path);
    expect(existsSync(path)).toBe(false);
  });
});
