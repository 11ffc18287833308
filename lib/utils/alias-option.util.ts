import type { AliasOption } from '../core/alias-option.interface';
import { UnknownBackendError } from '../core/errors/unknown-backend.error';
import { aliasOptionsDisagree, backendOptionDeprecated } from '../core/alias-option.messages';

const warned = new Set<string>();

/**
 * The alias an options object names: `alias`, or the deprecated `backend`
 * (a Node deprecation warning, once per place per process); undefined for
 * the default backend. `place` names where the options were written, e.g.
 * `'@Task(...)'` or `'QueueService.pause'`.
 *
 * @throws UnknownBackendError when both are set to different aliases.
 */
export function aliasOption(options: AliasOption | undefined, place: string): string | undefined {
  const { alias, backend } = options ?? {};
  if (backend === undefined) return alias;
  if (alias !== undefined && alias !== backend) {
    throw new UnknownBackendError(aliasOptionsDisagree(place, alias, backend));
  }
  if (!warned.has(place)) {
    warned.add(place);
    process.emitWarning(backendOptionDeprecated(place), {
      type: 'DeprecationWarning',
      code: 'THREADMILL_BACKEND_OPTION',
    });
  }
  return backend;
}
