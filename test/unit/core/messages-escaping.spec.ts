import { unknownQueue } from '../../../lib/core/control.messages';
import { scheduleNotFound } from '../../../lib/schedule/schedule.messages';
import { shown } from '../../../lib/core/shown';
import {
  backendNotConfigured,
  invalidName,
  queueNotConfigured,
  taskNameNotRegistered,
  taskResultDoesNotExist,
  unknownBackend,
} from '../../../lib/core/threadmill.messages';
import { invalidUniqueKey } from '../../../lib/core/unique-key.messages';
import {
  invalidDashboardInput,
  unknownDashboardAlias,
} from '../../../lib/dashboard/dashboard.messages';
// A name as an attacker would type it: a line of its own after the newline,
import {
  unknownCommand,
  workerBackendNotConfigured,
  workerQueueNotConfigured,
} from '../../../lib/cli/command.messages';

// a quote to close the message's, and a terminal escape to hide the rest.
const FORGED = 'x\nerror: forged line "quoted" \u001b[2K';
const ESCAPED = JSON.stringify(FORGED);

describe('names in messages', () => {
  it.each<[string, string]>([
    ['an invalid queue name', invalidName('queue', FORGED)],
    ['an invalid task name', invalidName('task', FORGED)],
    ['an invalid alias', invalidName('backend alias', FORGED)],
    ['a queue not configured', queueNotConfigured('t', FORGED, 'default', ['default'])],
    ['a queue not configured, as the CLI says it', workerQueueNotConfigured(FORGED, 'a', ['q'])],
    ['an unknown queue', unknownQueue(FORGED, 'default', ['default'])],
    ['a task name not registered', taskNameNotRegistered(FORGED, ['sample.echo'])],
    ['an alias not configured for a task', backendNotConfigured('t', FORGED, ['default'])],
    ['an unknown alias', unknownBackend(FORGED, ['default'])],
    ['an alias not configured, as the CLI says it', workerBackendNotConfigured(FORGED, ['a'])],
    ['an alias the dashboard does not show', unknownDashboardAlias(FORGED, ['default'])],
    ['an unknown command', unknownCommand(FORGED, ['worker'])],
    ['a schedule not stored', scheduleNotFound(FORGED, 'default')],
    ['a unique key', invalidUniqueKey('t', FORGED)],
    ['a result id', taskResultDoesNotExist(FORGED, 'default')],
    ['a dashboard input field', invalidDashboardInput(FORGED, 'is not a limit')],
  ])(
    'a queue, task or alias name with a newline is printed escaped in the refusal: %s',
    (_what, message) => {
      for (const raw of ['\n', '\r', '\u001b']) expect(message).not.toContain(raw);
      expect(message).toContain(ESCAPED);
    },
  );

  it('prints a plain name as it always did, in double quotes', () => {
    expect(queueNotConfigured('mail.send', 'nope', 'default', ['default', 'emails'])).toBe(
      'Task "mail.send": queue "nope" is not configured for backend "default" ' +
        '(configured: "default", "emails"). Add it to the backend\'s queues or pick one of those.',
    );
  });

  it('escapes the separators and controls JSON leaves as they are', () => {
    expect(shown('a\u2028b\u2029c\u0085d\u009be\u007ff')).toBe(
      '"a\\u2028b\\u2029c\\u0085d\\u009be\\u007ff"',
    );
    expect(shown(42)).toBe('42');
  });
});
