import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { waitFor } from './wait-for';

const run = promisify(execFile);
const REPO = join(__dirname, '..', '..');
/** The file of a cache entry that lists what the tarball ships; there once the entry is whole. */
const LISTING = 'files.json';

/** What `npm run build` and `npm pack` read: the package is a function of these alone. */
const PACKAGE_SOURCES = [
  'package.json',
  'README.md',
  'LICENSE',
  'CHANGELOG.md',
  'nest-cli.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'lib',
  'scripts',
];

/** The package as `npm pack` makes it: the tarball and the paths it ships. */
export interface PackedPackage {
  readonly tarball: string;
  readonly files: readonly string[];
}

/** A digest of every file the package is built from, so a change to any of them packs anew. */
function sourceDigest(): string {
  const hash = createHash('sha256');
  for (const entry of PACKAGE_SOURCES) {
    const path = join(REPO, entry);
    const files = statSync(path).isDirectory()
      ? readdirSync(path, { recursive: true, encoding: 'utf8' })
          .map((file) => join(entry, file))
          .filter((file) => statSync(join(REPO, file)).isFile())
          .sort()
      : [entry];
    for (const file of files)
      hash
        .update(file)
        .update('\0')
        .update(readFileSync(join(REPO, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** Whether the process `pid` still runs (0: not known yet, taken as running). */
function running(pid: number): boolean {
  if (pid === 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // No such process: whoever held the lock died without removing it.
    return false;
  }
}

/** Builds and packs the sources into `entry` (see packedPackage). */
async function pack(cache: string, entry: string): Promise<void> {
  const stage = mkdtempSync(join(cache, 'stage-'));
  try {
    for (const source of PACKAGE_SOURCES) {
      cpSync(join(REPO, source), join(stage, source), { recursive: true });
    }
    symlinkSync(join(REPO, 'node_modules'), join(stage, 'node_modules'), 'dir');
    await run('npm', ['run', 'build'], { cwd: stage });
    const packDir = join(stage, 'pack');
    mkdirSync(packDir);
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', packDir], {
      cwd: stage,
    });
    const [packed] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
    writeFileSync(
      join(packDir, LISTING),
      JSON.stringify({ filename: packed.filename, files: packed.files.map((f) => f.path) }),
    );
    renameSync(packDir, entry);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * The package built (`npm run build`) and packed (`npm pack`) from a copy of
 * the repository's sources, so no run races another over the repo's dist/.
 * The e2e files that install it into fresh apps (packaging, getting started)
 * share one build: it is kept under the system's temporary folder by a digest
 * of its sources, and made once: the first file to ask takes a lock folder
 * and builds, one asking meanwhile waits for the package (or takes over if
 * the builder died). The package is moved into place in one rename, so no
 * reader sees half of one.
 */
export async function packedPackage(): Promise<PackedPackage> {
  const cache = join(tmpdir(), 'threadmill-packed');
  mkdirSync(cache, { recursive: true });
  const entry = join(cache, sourceDigest());
  const listing = join(entry, LISTING);
  const lock = `${entry}.lock`;
  // A builder that dies is replaced; more than a few in a row is a fault to report.
  for (let round = 0; round < 3 && !existsSync(listing); round++) {
    try {
      mkdirSync(lock);
    } catch {
      const owner = (): number => Number(readFileSync(join(lock, 'pid'), 'utf8'));
      await waitFor(() => existsSync(listing) || !existsSync(lock) || !running(owner()), {
        timeoutMs: 300_000,
        intervalMs: 250,
        what: `the package being built under ${lock}`,
      });
      if (!existsSync(listing) && existsSync(lock)) rmSync(lock, { recursive: true, force: true });
      continue;
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      await pack(cache, entry);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  const { filename, files } = JSON.parse(readFileSync(listing, 'utf8')) as {
    filename: string;
    files: string[];
  };
  return { tarball: join(entry, filename), files };
}
