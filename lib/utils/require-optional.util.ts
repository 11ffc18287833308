const isModuleNotFound = (error: unknown, specifier: string): boolean =>
  typeof error === 'object' &&
  error !== null &&
  (error as { code?: unknown }).code === 'MODULE_NOT_FOUND' &&
  String((error as { message?: unknown }).message).includes(specifier);

/**
 * `require(specifier)` of an optional peer dependency: the module, or null
 * when it is not installed; any other failure to load it is thrown. Called
 * on first use, never at module load, so importing the package works
 * without the peer.
 *
 * @internal
 */
export function requireOptional<T>(specifier: string): T | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy require is what keeps the peer optional
    return require(specifier) as T;
  } catch (error) {
    if (isModuleNotFound(error, specifier)) return null;
    throw error;
  }
}
