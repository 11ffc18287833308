import { InvalidBackendConfigError } from './core/errors/invalid-backend-config.error';
import { DEFAULT_APP_NAME } from './core/threadmill.constants';
import { invalidAppName } from './core/threadmill.messages';
import { isValidName } from './core/validate-name.util';
import type { ThreadmillModuleOptions } from './threadmill-module-options.interface';

/**
 * The application this process belongs to: ThreadmillModule's `app` option,
 * checked. Injected where a schedule records or matches its app; a class,
 * so it is its own injection token.
 *
 * @internal
 */
export class ThreadmillApp {
  private constructor(readonly name: string) {}

  /** @throws InvalidBackendConfigError when `app` is not a valid name. */
  static of(options: Pick<ThreadmillModuleOptions, 'app'>): ThreadmillApp {
    const app: unknown = options?.app ?? DEFAULT_APP_NAME;
    if (!isValidName(app)) throw new InvalidBackendConfigError(invalidAppName(app));
    return new ThreadmillApp(app);
  }
}
