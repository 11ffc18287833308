import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import * as ts from 'typescript';

import type { PrismaTransactionLike } from '../../../../../lib/backends/postgres';

const run = promisify(execFile);
const REPO = join(__dirname, '..', '..', '..', '..', '..');

// Prisma 7's `prisma-client` generator writes TypeScript, generated here per
// run: CommonJS with `.js` imports, so each file transpiled beside it loads.
// Its tables are made by SQL (the scenarios' own), not `prisma migrate`.
const SCHEMA = `
generator client {
  provider            = "prisma-client"
  output              = "./generated"
  moduleFormat        = "cjs"
  importFileExtension = "js"
}

datasource db {
  provider = "postgresql"
}

model User {
  id String @id

  @@map("users")
}
`;

/** The generated client's surface these tests use. */
export interface PrismaClientLike extends PrismaTransactionLike {
  $transaction<T>(work: (tx: PrismaTransactionLike) => Promise<T>, options?: unknown): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $disconnect(): Promise<void>;
}

/** A client generated for this run, and how to remove it. */
export interface GeneratedPrisma {
  /** A client on `url` through `@prisma/adapter-pg`, with a pool of two. */
  connect(url: string): PrismaClientLike;
  remove(): void;
}

type PrismaClientClass = new (options: { adapter: unknown }) => PrismaClientLike;
type PrismaPgClass = new (config: { connectionString: string; max: number }) => unknown;

/** Every .ts file under `dir`, transpiled to a .js file beside it. */
function transpileTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) transpileTree(path);
    else if (entry.name.endsWith('.ts')) {
      const { outputText } = ts.transpileModule(readFileSync(path, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
      });
      writeFileSync(path.replace(/\.ts$/, '.js'), outputText);
    }
  }
}

/** Generates the client of a `users` table (`id` text) into a folder of its own. */
export async function generatePrisma(): Promise<GeneratedPrisma> {
  // Under node_modules, so the generated files find @prisma/client as an app's would.
  const cache = join(REPO, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const folder = mkdtempSync(join(cache, 'threadmill-prisma-'));
  writeFileSync(join(folder, 'schema.prisma'), SCHEMA);
  await run(
    process.execPath,
    [
      require.resolve('prisma/build/index.js'),
      'generate',
      '--schema',
      join(folder, 'schema.prisma'),
    ],
    // Any existing file will do: generate needs no schema engine, only its path.
    { cwd: folder, env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath } },
  );
  transpileTree(join(folder, 'generated'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- generated at run time
  const { PrismaClient } = require(join(folder, 'generated', 'client.js')) as {
    PrismaClient: PrismaClientClass;
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded beside the client
  const { PrismaPg } = require('@prisma/adapter-pg') as { PrismaPg: PrismaPgClass };
  return {
    connect: (url) =>
      new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }) }),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}
