/**
 * What is said when a store's own files fail it: a full disk, a damaged or
 * foreign file, an empty one. Each names the file and what to do.
 */
import { shown } from './shown';

export const sqliteFull = (alias: string, filename: string, reason: string): string =>
  `Threadmill backend ${shown(alias)}: the disk holding the SQLite database ${filename} is full ` +
  `(${reason}), so the write was refused and nothing of it was stored. Retry once space is ` +
  `freed: free disk space, or keep less (a shorter resultTtl, fewer waiting tasks).`;

export const sqliteCorrupt = (alias: string, filename: string, reason: string): string =>
  `Threadmill backend ${shown(alias)}: the SQLite database ${filename} is damaged (${reason}): ` +
  `some of its pages are not what SQLite wrote (a disk or file system fault, or another program ` +
  `wrote into it), so nothing stored in it can be trusted and no retry can help. Stop every ` +
  `process that uses it, then restore it from a backup, or move it aside with its -wal and -shm ` +
  `files to start with an empty one.`;

export const sqliteNotADatabase = (alias: string, filename: string, reason: string): string =>
  `Threadmill backend ${shown(alias)}: ${filename} is not a SQLite database (${reason}), so it is not ` +
  `used. Check that the backend's url names the right file; if it does, the file is damaged: ` +
  `restore it from a backup, or move it aside to start with an empty one.`;

export const sqliteEmptyFileInitialised = (alias: string, filename: string): string =>
  `Threadmill backend ${shown(alias)}: the SQLite database ${filename} was an empty file (0 bytes), so ` +
  `a new, empty database was made in it. If it held tasks, they were lost before this start (the ` +
  `file was truncated or replaced): restore it from a backup.`;

export const childStoreCorrupt = (): string =>
  `The store is damaged, so this worker stops at once: it takes nothing more, gives back what ` +
  `it holds where the store still takes it, and drops the outcomes it could not store (those ` +
  `tasks stay RUNNING in the store). The error follows as it exits.`;

export const poolStoreCorrupt = (): string =>
  `The store is damaged, so the worker pool stops at once (its children are stopped urgently). ` +
  `The error follows as it exits.`;

export const poolStoppedStoreCorrupt = (alias: string, pid: number): string =>
  `The store of backend ${shown(alias)} is damaged: worker child ${pid} found it so (its own error, ` +
  `logged above, names the file and the fault), and the worker pool stopped, since no retry ` +
  `can help. Restore the store from a backup, or move it aside, before starting the pool again.`;
