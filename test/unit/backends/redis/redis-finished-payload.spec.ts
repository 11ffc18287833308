import {
  decodeFinishedMessage,
  finishedLabel,
  finishedMessage,
} from '../../../../lib/backends/redis/redis-finished-payload';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';

describe('the messages of the finished channel', () => {
  it('decodes the groups a script publishes into one task per id', () => {
    const done = finishedLabel('default', TaskResultStatus.SUCCESSFUL, 'mail.send');
    const failed = finishedLabel('emails', TaskResultStatus.FAILED, 'mail.digest');
    // As storeFinished builds it: each label followed by cjson's list of the stored ids.
    const message = `[[${done},["a","b"]],[${failed},["c"]]]`;
    expect(decodeFinishedMessage(message)).toEqual([
      { id: 'a', queue: 'default', status: TaskResultStatus.SUCCESSFUL, name: 'mail.send' },
      { id: 'b', queue: 'default', status: TaskResultStatus.SUCCESSFUL, name: 'mail.send' },
      { id: 'c', queue: 'emails', status: TaskResultStatus.FAILED, name: 'mail.digest' },
    ]);
    expect(
      decodeFinishedMessage(
        finishedMessage(finishedLabel('q', TaskResultStatus.CANCELLED, 'n'), 'x'),
      ),
    ).toEqual([{ id: 'x', queue: 'q', status: TaskResultStatus.CANCELLED, name: 'n' }]);
  });

  it.each([
    ['not JSON', 'hello'],
    ['not a list', '{"a":1}'],
    ['a status that is not final', '[[["q","RUNNING","n"],["a"]]]'],
    ['an id that is not a string', '[[["q","FAILED","n"],[1]]]'],
  ])('ignores a message that is %s', (_what, message) => {
    expect(decodeFinishedMessage(message)).toBeNull();
  });
});
