/**
 * The matchers the contract suite asserts with: a subset that Jest's and
 * Vitest's `expect` have alike, each returning `R` (nothing, or a promise
 * under `resolves` and `rejects`).
 */
export interface ContractMatchers<R> {
  toBe(expected: unknown): R;
  toEqual(expected: unknown): R;
  toMatchObject(expected: object): R;
  toHaveLength(length: number): R;
  toBeNull(): R;
  toBeUndefined(): R;
  toBeInstanceOf(expected: unknown): R;
  toBeGreaterThan(expected: number): R;
  toBeGreaterThanOrEqual(expected: number): R;
  toBeLessThan(expected: number): R;
  toBeLessThanOrEqual(expected: number): R;
  toContain(expected: unknown): R;
  toContainEqual(expected: unknown): R;
  toMatch(expected: string | RegExp): R;
  toThrow(expected?: string | RegExp | Error | (new (...args: never[]) => unknown)): R;
}

/** The matchers and their negations (`not`). */
export interface ContractNegatable<R> extends ContractMatchers<R> {
  readonly not: ContractMatchers<R>;
}

/** What `expect(actual)` gives: the matchers, and the same ones on a promise's outcome. */
export interface ContractAssertion extends ContractNegatable<void> {
  readonly resolves: ContractNegatable<Promise<void>>;
  readonly rejects: ContractNegatable<Promise<void>>;
}

/**
 * The test runner's functions the contract suite registers its cases with,
 * passed in rather than read from globals, so a backend's own tests may run
 * it with any runner whose functions fit: Jest's and Vitest's do as they are.
 *
 * ```ts
 * describeBackendContract('my store', factory, { describe, it, expect, beforeEach, afterEach });
 * ```
 */
export interface ContractRunner {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  beforeEach(hook: () => Promise<void>): void;
  afterEach(hook: () => Promise<void>): void;
  expect(actual: unknown): ContractAssertion;
}
