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

const run = promisify(execFile);
const REPO = join(__dirname, '..', '..');

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

/**
 * The package built (`npm run build`) and packed (`npm pack`) from a copy of
 * the repository's sources, so no run races another over the repo's dist/.
 * The e2e files that install it into fresh apps (packaging, getting started)
 * share one build: it is kept under the system's temporary folder by a digest
 * of its sources, made by whichever file asks first and moved into place in
 * one rename, so a second file that built it at the same moment uses the
 * first one's and a reader never sees half a package.
 */
export async function packedPackage(): Promise<PackedPackage> {
  const cache = join(tmpdir(), 'threadmill-packed');
  const entry = join(cache, sourceDigest());
  const listing = join(entry, 'files.json');
  if (!existsSync(listing)) {
    mkdirSync(cache, { recursive: true });
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
        join(packDir, 'files.json'),
        JSON.stringify({ filename: packed.filename, files: packed.files.map((f) => f.path) }),
      );
      try {
        renameSync(packDir, entry);
      } catch (error) {
        // Another file packed the same sources first: its package is this one.
        if (!existsSync(listing)) throw error;
      }
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  }
  const { filename, files } = JSON.parse(readFileSync(listing, 'utf8')) as {
    filename: string;
    files: string[];
  };
  return { tarball: join(entry, filename), files };
}
