import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, normalize } from 'node:path';

import { CancelCommand } from '../../../lib/cli/cancel.command';
import { RemoveCommand } from '../../../lib/cli/remove.command';
import { RetryCommand } from '../../../lib/cli/retry.command';
import { EnqueueCommand } from '../../../lib/cli/enqueue.command';
import { QueuesListCommand } from '../../../lib/cli/queues-list.command';
import { QueuesPauseCommand } from '../../../lib/cli/queues-pause.command';
import { QueuesLimitCommand } from '../../../lib/cli/queues-limit.command';
import { QueuesResumeCommand } from '../../../lib/cli/queues-resume.command';
import { ResultCommand } from '../../../lib/cli/result.command';
import { SchedulesAddCommand } from '../../../lib/cli/schedules-add.command';
import { MigrateCommand } from '../../../lib/cli/migrate.command';
import { commandOptions, documentedOptionRows } from '../../helpers/command-options';
import { REPO, codeBlocks, docPages, handWrittenPages, readPage } from './doc-pages';

// The README and the guides of docs/ as a reader meets them: a short README,
// code blocks that say their language, links that lead somewhere, option
// tables equal to the commands', and prose about the software, not about how
// it was made.

/** The languages a fenced block may name: TypeScript is compiled, the rest is shown. */
const FENCE_LANGUAGES = ['ts', 'console', 'text', 'json', 'sh', 'yaml'];

/** GitHub's anchor for a heading. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page's headings (outside code blocks), numbered when repeated as GitHub does. */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let inFence = false;
  for (const line of readPage(page).split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const heading = !inFence && /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** A page's prose: its text without code blocks and inline code. */
function prose(page: string): string {
  return readPage(page)
    .replace(/^\s*```[\s\S]*?^\s*```/gm, '')
    .replace(/`[^`\n]*`/g, '');
}

/** Every relative link target of a page (markdown links and images), outside code. */
function relativeLinks(page: string): string[] {
  return [...prose(page).matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => target)
    .filter((target) => !/^[a-z]+:/i.test(target));
}

/** Words that narrate how the project was made, or point at a machine or a run. */
const NARRATION: readonly [string, RegExp][] = [
  ['an issue number', /\bissues?\s*#?\d+/i],
  ['a numbered session', /\bsessions?\s+\d+/i],
  ['a spec section', /\bSPEC\b|§/],
  ['the style guide', /STYLE\.md/],
  ['an earlier implementation', /\bthe original\b|\bPython\b/i],
  ['a commit hash', /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/],
  ['this machine’s name in a worker id', new RegExp(`\\b${hostname()}:\\d+-\\d+`)],
];

describe('README.md and docs/', () => {
  it('keep the README short: at most 250 lines', () => {
    expect(readPage('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });

  it.each(docPages())('%s: every code block names its language', (page) => {
    const unnamed = codeBlocks(page)
      .filter((block) => !FENCE_LANGUAGES.includes(block.lang))
      .map((block) => `${page}:${block.line - 1} \`\`\`${block.lang}`);
    expect(unnamed).toEqual([]);
  });

  it.each(docPages())(
    '%s: every relative link leads to a file, and its anchor to a heading',
    (page) => {
      const broken = relativeLinks(page).filter((target) => {
        const [path, anchor] = target.split('#');
        const file = path === '' ? page : normalize(join(dirname(page), path));
        if (!existsSync(join(REPO, file))) return true;
        return anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor);
      });
      expect(broken).toEqual([]);
    },
  );

  it.each(handWrittenPages())('%s: describes the software, not how it was made', (page) => {
    // Task ids (UUIDs, whole or cut short with an ellipsis) are not commit hashes.
    const text = readPage(page).replace(/\b[0-9a-f]{8}(?:-[0-9a-f]{1,12}){0,4}(?:…)?/g, 'UUID');
    const found = NARRATION.filter(([, pattern]) => pattern.test(text)).map(
      ([what, pattern]) => `${what}: "${pattern.exec(text)?.[0]}"`,
    );
    expect(found).toEqual([]);
  });

  it.each([
    ['### `enqueue` options', EnqueueCommand],
    ['### `result` options', ResultCommand],
    ['### `cancel` options', CancelCommand],
    ['### `retry` options', RetryCommand],
    ['### `remove` options', RemoveCommand],
    ['### `queues list` options', QueuesListCommand],
    ['### `queues pause` options', QueuesPauseCommand],
    ['### `queues resume` options', QueuesResumeCommand],
    ['### `queues limit` options', QueuesLimitCommand],
    ['### `schedules add` options', SchedulesAddCommand],
    ['### `migrate` options', MigrateCommand],
  ] as const)('list %s as the command declares them', (heading, command) => {
    expect(documentedOptionRows(heading)).toEqual(
      commandOptions(command).map((meta) => [meta.flags, meta.description ?? '']),
    );
  });
});
