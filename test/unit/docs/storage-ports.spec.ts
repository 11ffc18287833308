import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  OPTIONAL_PORT_METHODS,
  PORT_METHODS,
  type BackendPartName,
} from '../../../lib/core/ports/port-methods';

const page = readFileSync(join(__dirname, '../../../docs/architecture.md'), 'utf8');

/** The rows of the Storage ports table: method, what it does, who uses it. */
function portRows(): Map<string, { what: string; usedBy: string }> {
  const start = page.indexOf('## Storage ports');
  const end = page.indexOf('\n## ', start + 1);
  const rows = new Map<string, { what: string; usedBy: string }>();
  for (const line of page.slice(start, end).split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const method = /^`(\w+\.\w+)`$/.exec(cells[1] ?? '')?.[1];
    if (method) rows.set(method, { what: cells[2], usedBy: cells[3] });
  }
  return rows;
}

describe('docs/architecture.md, the storage ports', () => {
  const rows = portRows();
  const methods = (Object.keys(PORT_METHODS) as BackendPartName[]).flatMap((part) =>
    [...PORT_METHODS[part], ...(OPTIONAL_PORT_METHODS[part] ?? [])].map(
      (method) => `${part}.${String(method)}`,
    ),
  );

  it('describes every method of every part, with who uses it', () => {
    const missing = methods.filter((m) => !rows.get(m)?.what || !rows.get(m)?.usedBy);
    expect(missing).toEqual([]);
  });

  it('describes no method a part does not have', () => {
    expect([...rows.keys()].filter((m) => !methods.includes(m))).toEqual([]);
  });
});
