import type { LoggerService } from '@nestjs/common';

import { unknownTaskUnleasedLogged } from '../task/task-name.messages';

/** How often one name's unleased tasks are logged again, with their count since. */
const LOG_EVERY_MS = 60_000;

/**
 * The task names a worker gave tasks back for because it registers none of
 * them. A rolling deploy can bring thousands: each name is logged when first
 * met, then once a minute with how many went back since, not once per task.
 *
 * @internal
 */
export class UnknownNames {
  private readonly byName = new Map<string, { loggedAt: number; since: number }>();

  constructor(
    private readonly logger: LoggerService,
    private readonly now: () => number = Date.now,
  ) {}

  /** One task of `name` went back. */
  seen(name: string): void {
    const now = this.now();
    const entry = this.byName.get(name);
    if (entry !== undefined && now - entry.loggedAt < LOG_EVERY_MS) {
      entry.since += 1;
      return;
    }
    this.logger.warn(unknownTaskUnleasedLogged(name, (entry?.since ?? 0) + 1));
    this.byName.set(name, { loggedAt: now, since: 0 });
  }
}
