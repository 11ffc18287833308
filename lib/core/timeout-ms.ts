/** A whole number of milliseconds above 0: what `timeoutMs` accepts. */
export function isValidTimeoutMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
