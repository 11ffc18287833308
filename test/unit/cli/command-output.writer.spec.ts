import { CommandOutputWriter } from '../../../lib/cli/command-output.writer';
import { ExitCode } from '../../../lib/core/exit-code';
import { BackendUnavailableError } from '../../../lib/core/errors/backend-unavailable.error';
import { InvalidTaskError } from '../../../lib/core/errors/invalid-task.error';
import { TaskResultDoesNotExist } from '../../../lib/core/errors/task-result-does-not-exist.error';
import { UnknownBackendError } from '../../../lib/core/errors/unknown-backend.error';
import { UnknownQueueError } from '../../../lib/core/errors/unknown-queue.error';
import { UnknownScheduleError } from '../../../lib/core/errors/unknown-schedule.error';

describe('CommandOutputWriter.refused', () => {
  const output = new CommandOutputWriter();
  let stderr: jest.SpyInstance;

  beforeEach(() => {
    stderr = jest.spyOn(process.stderr, 'write').mockReturnValue(true);
    process.exitCode = undefined;
  });

  afterEach(() => {
    stderr.mockRestore();
    process.exitCode = undefined;
  });

  it.each([
    new InvalidTaskError('bad task'),
    new UnknownBackendError('no alias'),
    new UnknownQueueError('no queue'),
  ])('reports what the command line named wrong as a usage error: %p', (error) => {
    output.refused(error);
    expect(process.exitCode).toBe(ExitCode.Usage);
    expect(stderr).toHaveBeenCalledWith(expect.stringContaining(error.message));
  });

  it.each([new TaskResultDoesNotExist('no result'), new UnknownScheduleError('no schedule')])(
    'reports what is not stored as a failure: %p',
    (error) => {
      output.refused(error);
      expect(process.exitCode).toBe(ExitCode.Failure);
      expect(stderr).toHaveBeenCalledWith(expect.stringContaining(error.message));
    },
  );

  it('rethrows anything else, for the command line to report', () => {
    const outage = new BackendUnavailableError('down');
    expect(() => output.refused(outage)).toThrow(outage);
    expect(() => output.refused('not an error')).toThrow();
    expect(process.exitCode).toBeUndefined();
  });
});
