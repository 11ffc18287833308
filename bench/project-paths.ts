import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const PACKAGE_NAME = '@threadmill/nestjs';

/** The checkout this benchmark belongs to (the compiled code runs from a cache dir). */
export function findProjectRoot(from: string = __dirname): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string };
      if (name === PACKAGE_NAME) return dir;
    }
    if (dirname(dir) === dir) return process.cwd();
  }
}

/** Root of the compiled tree: this file is `<out>/bench/project-paths.js`. */
export const COMPILED_ROOT = resolve(__dirname, '..');

/**
 * tsc copies no assets: put every `lib/**\/*.lua` next to its compiled
 * module, where the Redis backend loads it from (nest-cli does the same for dist/).
 */
export function copyLuaAssets(projectRoot: string, compiledRoot = COMPILED_ROOT): number {
  let copied = 0;
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.lua')) {
        const target = join(compiledRoot, relative(projectRoot, path));
        mkdirSync(dirname(target), { recursive: true });
        copyFileSync(path, target);
        copied++;
      }
    }
  };
  walk(join(projectRoot, 'lib'));
  return copied;
}

/**
 * The dashboard's page (scripts/build-dashboard.mjs) where the compiled
 * dashboard module serves it from: `assets/` beside it, as `npm run build` does for dist/.
 */
export function buildDashboardPage(projectRoot: string, compiledRoot = COMPILED_ROOT): void {
  execFileSync(process.execPath, [
    join(projectRoot, 'scripts', 'build-dashboard.mjs'),
    join(compiledRoot, 'lib', 'dashboard', 'assets'),
  ]);
}
