/**
 * Options that name a backend by its alias (a key of `ThreadmillModule`'s
 * `backends`).
 *
 * @publicApi
 */
export interface AliasOption {
  /** The backend alias. Default: the only one configured, else `'default'`. */
  alias?: string;
  /**
   * @deprecated Renamed `alias` (same value) in 0.4.0; still read, with a
   * deprecation warning, until 0.5.0.
   */
  backend?: string;
}
