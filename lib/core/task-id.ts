import { randomFillSync } from 'node:crypto';

/** Random bytes per id: the 16 of a UUID less its 48-bit time. */
const RANDOM_BYTES = 10;
/** Ids whose random bytes one call to the system's generator draws. */
const IDS_PER_DRAW = 128;

const drawn = Buffer.alloc(RANDOM_BYTES * IDS_PER_DRAW);
let unused = 0;
const id = Buffer.alloc(16);

/**
 * A new task id: a UUID version 7 (RFC 9562), its first 48 bits the time in
 * milliseconds, the other 74 random. Ids made later sort later, so a store's
 * index of ids grows at one end instead of at random places: on SQLite each
 * commit of a small batch then rewrites a page or two of that index, where
 * random ids dirty a page per task. Unique as a version 4 UUID is for any
 * practical purpose (74 random bits per millisecond), and as unpredictable.
 *
 * @param now the time it carries, in ms since the epoch.
 */
export function newTaskId(now = Date.now()): string {
  if (unused === 0) {
    randomFillSync(drawn);
    unused = IDS_PER_DRAW;
  }
  unused--;
  id.writeUIntBE(now, 0, 6);
  drawn.copy(id, 6, unused * RANDOM_BYTES, (unused + 1) * RANDOM_BYTES);
  id[6] = (id[6] & 0x0f) | 0x70; // version 7
  id[8] = (id[8] & 0x3f) | 0x80; // variant 10
  const hex = id.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
