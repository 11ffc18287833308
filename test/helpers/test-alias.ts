import { randomUUID } from 'node:crypto';

/** A backend alias of its own per test, so its keys share no hash tag with any other test. */
export function testAlias(): string {
  return `t-${randomUUID()}`;
}
