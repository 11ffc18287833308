import { createHash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';

import Database from 'better-sqlite3';

/**
 * Bytes that look random and are the same on every run: a test that damages
 * a file this way damages it the same way each time, so a failure repeats.
 */
export function seededBytes(length: number, seed: string): Buffer {
  const blocks: Buffer[] = [];
  let block = createHash('sha256').update(seed).digest();
  for (let size = 0; size < length; size += block.length) {
    blocks.push(block);
    block = createHash('sha256').update(block).digest();
  }
  return Buffer.concat(blocks).subarray(0, length);
}

/** Writes `length` seeded bytes over `file` at `offset`, as a disk fault or a stray program would. */
export function overwrite(file: string, offset: number, length: number, seed: string): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, seededBytes(length, seed), 0, length, offset);
  } finally {
    closeSync(fd);
  }
}

/**
 * Overwrites the root page of `table` (a table or an index) of a database
 * no connection has open: every statement that reads or writes it then
 * fails with SQLITE_CORRUPT, and the rest of the file still works.
 */
export function damageRootPage(file: string, table: string, seed: string): void {
  const db = new Database(file);
  let pageSize: number;
  let rootPage: number;
  try {
    pageSize = db.pragma('page_size', { simple: true }) as number;
    rootPage = db
      .prepare('SELECT rootpage FROM sqlite_master WHERE name = ?')
      .pluck()
      .get(table) as number;
  } finally {
    db.close();
  }
  // A page starts with its type, and 0 is none: SQLite sees the damage at once, whatever follows.
  const page = seededBytes(pageSize, seed);
  page[0] = 0;
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, page, 0, pageSize, (rootPage - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
}
