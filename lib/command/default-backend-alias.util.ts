import { DEFAULT_BACKEND_ALIAS } from '../core/threadmill.constants';

/** The alias a command uses without `--backend`: the only one configured, else `default`. */
export function defaultBackendAlias(aliases: readonly string[]): string {
  return aliases.length === 1 ? aliases[0] : DEFAULT_BACKEND_ALIAS;
}
