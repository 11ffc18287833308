import { randomFillSync } from 'node:crypto';

/** Random hex digits per id: 3 after the version digit, 3 after the variant digit, 12 at the end, and 1 for the variant. */
const RANDOM_HEX = 19;
/** Ids whose random digits one call to the system's generator draws. */
const IDS_PER_DRAW = 128;

const drawn = Buffer.alloc(Math.ceil((RANDOM_HEX * IDS_PER_DRAW) / 2));
let digits = '';
let unused = 0;

/** The variant digit (binary 10xx) for each random hex digit, by its character code. */
const VARIANT: Record<string, string> = {};
for (let value = 0; value < 16; value++) {
  VARIANT[value.toString(16)] = (0x8 | (value & 0x3)).toString(16);
}

function hex6(value: number): string {
  return value.toString(16).padStart(6, '0');
}

/**
 * A new task id: a UUID version 7 (RFC 9562), its first 48 bits the time in
 * milliseconds, the other 74 random. Ids made later sort later, so a store's
 * index of ids grows at one end instead of at random places: on SQLite each
 * commit of a small batch then rewrites a page or two of that index, where
 * random ids dirty a page per task. Unique as a version 4 UUID is for any
 * practical purpose (74 random bits per millisecond), and as unpredictable.
 * Made from text, not bytes: a single enqueue makes one on its hot path.
 *
 * @param now the time it carries, in ms since the epoch.
 */
export function newTaskId(now = Date.now()): string {
  if (unused === 0) {
    randomFillSync(drawn);
    digits = drawn.toString('hex');
    unused = IDS_PER_DRAW;
  }
  unused--;
  const at = unused * RANDOM_HEX;
  // Two 24-bit halves: a small integer formats fast, a 48-bit one goes through the slow path.
  const time = hex6(Math.floor(now / 0x1000000)) + hex6(now % 0x1000000);
  return (
    `${time.slice(0, 8)}-${time.slice(8)}-7${digits.slice(at, at + 3)}-` +
    `${VARIANT[digits[at + 3]]}${digits.slice(at + 4, at + 7)}-${digits.slice(at + 7, at + RANDOM_HEX)}`
  );
}
