import { DEFAULT_BACKEND_ALIAS, THREADMILL_NAMESPACE } from '../core/threadmill.constants';

/**
 * The DI token of one configured backend alias.
 *
 * @param alias the key under `backends` in `ThreadmillModule.forRoot`; default `'default'`.
 * @example
 * ```ts
 * const backend = app.get<TaskBackend>(getBackendToken('emails'));
 * ```
 * @publicApi
 */
export function getBackendToken(alias: string = DEFAULT_BACKEND_ALIAS): string {
  return `${THREADMILL_NAMESPACE}:backend:${alias}`;
}
