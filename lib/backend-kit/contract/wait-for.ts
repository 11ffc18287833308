/**
 * Await a condition with a deadline instead of sleeping a guessed time. The
 * condition is re-checked every `intervalMs`; the last value or error is in
 * the timeout message so a failure says what it saw.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 20, what = 'condition' } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}; last: ${String(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
