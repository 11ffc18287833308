import { newTaskId } from '../../../lib/core/task-id';
import { isValidTaskId } from '../../../lib/core/validate-name.util';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newTaskId', () => {
  it('is a UUID version 7 whose first 48 bits are the time it was made', () => {
    const at = Date.UTC(2026, 11, 2, 12, 0, 0, 345);
    const id = newTaskId(at);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
    expect(isValidTaskId(id)).toBe(true);
  });

  it('sorts ids made later after earlier ones, whatever their random part', () => {
    const ids = Array.from({ length: 300 }, (_, i) => newTaskId(1_800_000_000_000 + i));
    expect([...ids].sort()).toEqual(ids);
  });

  it('gives distinct ids within one millisecond, past one draw of random bytes', () => {
    const ids = Array.from({ length: 1000 }, () => newTaskId(1_800_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(UUID_V7);
  });
});
