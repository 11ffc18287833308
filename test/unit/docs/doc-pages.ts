import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root folder. */
export const REPO = join(__dirname, '..', '..', '..');

/** Written by `npm run bench` from its latest run, not by hand: only its code blocks are checked here. */
export const GENERATED_PAGES: readonly string[] = ['docs/benchmarks.md'];

/** README.md and every page of docs/, as paths relative to the repository. */
export function docPages(): string[] {
  const docs = readdirSync(join(REPO, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => `docs/${file}`);
  return ['README.md', ...docs];
}

/** The pages written by hand. */
export function handWrittenPages(): string[] {
  return docPages().filter((page) => !GENERATED_PAGES.includes(page));
}

export function readPage(page: string): string {
  return readFileSync(join(REPO, page), 'utf8');
}

/** One fenced code block of a page. */
export interface CodeBlock {
  readonly page: string;
  /** The fence's language (```ts → `ts`), '' when it names none. */
  readonly lang: string;
  readonly code: string;
  /** The page's line number (1-based) of the block's first line of code. */
  readonly line: number;
  /** The file the block stands for, when its first line says so: `// src/app.module.ts`. */
  readonly file?: string;
  /**
   * Whether the block adds to a file the app already has (`// add to src/app.module.ts`)
   * instead of being the whole file: its imports and the entries of its `@Module()`
   * arrays go into that file's (see test/helpers/module-additions.ts).
   */
  readonly addsTo?: boolean;
  /**
   * Whether the compiled examples hold the block at its file's path: every
   * whole file, and the first addition to a file no block of the page gives
   * whole (an addition is a complete module, which the page's other blocks
   * may import). Any other addition is written at a path of its own.
   */
  readonly atFilePath?: boolean;
}

const FENCE = /^(\s*)(`{3,})(.*)$/;
const FILE_COMMENT = /^\/\/ (add to )?((?:[\w.-]+\/)*[\w.-]+\.ts)$/;

/** Every fenced block of a page, de-indented when it sits in a list item. */
export function codeBlocks(page: string, text = readPage(page)): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index]);
    if (!open) continue;
    const [, indent, ticks, info] = open;
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !new RegExp(`^\\s*${ticks}\\s*$`).test(lines[end])) {
      body.push(lines[end].startsWith(indent) ? lines[end].slice(indent.length) : lines[end]);
      end++;
    }
    const code = body.join('\n');
    const named = FILE_COMMENT.exec(body[0] ?? '');
    const file = named?.[2];
    blocks.push({
      page,
      lang: info.trim().split(/\s+/)[0] ?? '',
      code,
      line: index + 2,
      ...(file !== undefined && { file }),
      ...(named?.[1] !== undefined && { addsTo: true }),
    });
    index = end;
  }
  const whole = new Set(blocks.filter((b) => b.file && !b.addsTo).map((b) => b.file));
  const added = new Set<string>();
  return blocks.map((block) => {
    if (block.file === undefined) return block;
    const first = block.addsTo === undefined || (!whole.has(block.file) && !added.has(block.file));
    if (block.addsTo) added.add(block.file);
    return first ? { ...block, atFilePath: true } : block;
  });
}

/** Every ```ts block of README.md and docs/. */
export function typeScriptBlocks(): CodeBlock[] {
  return docPages().flatMap((page) => codeBlocks(page).filter((block) => block.lang === 'ts'));
}

/** The folder of a page's examples: each page is a small project of its own. */
export function pageFolder(page: string): string {
  return page === 'README.md' ? 'README' : page.replace(/^docs\//, '').replace(/\.md$/, '');
}

/**
 * Where a block is written inside its page's folder: the file it names (see
 * CodeBlock.atFilePath), else a file of its own in `src/`, beside the files it
 * may import.
 */
export function blockPath(block: CodeBlock): string {
  const own = `src/example-line-${block.line}.ts`;
  return join(
    pageFolder(block.page),
    block.file !== undefined && block.atFilePath ? block.file : own,
  );
}

/** The entry points of the package and the sources they are built from. */
export const PACKAGE_ENTRY_POINTS: Readonly<Record<string, string>> = {
  '@threadmill/nestjs': 'lib/index.ts',
  '@threadmill/nestjs/backend': 'lib/backend-kit/index.ts',
  '@threadmill/nestjs/cli': 'lib/cli/index.ts',
  '@threadmill/nestjs/dashboard': 'lib/dashboard/index.ts',
  '@threadmill/nestjs/health': 'lib/health/index.ts',
  '@threadmill/nestjs/postgres': 'lib/backends/postgres/index.ts',
  '@threadmill/nestjs/sqlite': 'lib/backends/sqlite/index.ts',
  '@threadmill/nestjs/testing': 'lib/testing/index.ts',
};
