import { shown } from './shown';

/** Both the option `alias` and its deprecated name `backend` were given, naming different backends. */
export const aliasOptionsDisagree = (place: string, alias: string, backend: string): string =>
  `${place} sets alias ${shown(alias)} and backend ${shown(backend)}, its deprecated name: ` +
  'keep alias alone.';

/** The option `backend` was given where `alias` is now the name. */
export const backendOptionDeprecated = (place: string): string =>
  `${place}: the option "backend" is now named "alias" (same value); "backend" is read until 0.5.0.`;
