import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** libfaketime's preload library, where Debian's `faketime` package puts it (any architecture). */
export function libfaketime(): string {
  const candidates = [
    ...readdirSync('/usr/lib', { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name.endsWith('-linux-gnu'))
      .map((entry) => join('/usr/lib', entry.name, 'faketime', 'libfaketime.so.1')),
    '/usr/lib/faketime/libfaketime.so.1',
    '/usr/local/lib/faketime/libfaketime.so.1',
  ];
  const found = candidates.find((path) => existsSync(path));
  if (!found) {
    throw new Error(
      `libfaketime.so.1 not found (looked in ${candidates.join(', ')}): apt-get install faketime`,
    );
  }
  return found;
}

/**
 * The environment of a process whose wall clock is `offset` (libfaketime's
 * syntax, e.g. '+10m') off; a pool's children inherit it. Monotonic clocks
 * stay real, so Node's timers keep their pace.
 */
export function skewedClock(offset: string): Record<string, string> {
  return {
    LD_PRELOAD: libfaketime(),
    FAKETIME: offset,
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  };
}
