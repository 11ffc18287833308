import { Inject } from '@nestjs/common';
import { DEFAULT_BACKEND_ALIAS } from '../core/threadmill.constants';
import { getBackendToken } from './get-backend-token.util';

/**
 * Injects the `TaskBackend` of one alias. With `forRootAsync`, list the aliases
 * you inject in `backendAliases` (default `['default']`).
 *
 * @param alias the key under `backends`; default `'default'`.
 * @example
 * ```ts
 * constructor(@InjectBackend() private readonly backend: TaskBackend) {}
 * ```
 * @publicApi
 */
export function InjectBackend(
  alias: string = DEFAULT_BACKEND_ALIAS,
): PropertyDecorator & ParameterDecorator {
  return Inject(getBackendToken(alias));
}
