import {
  FinishedTaskFanout,
  type FinishedTask,
  type FinishedTaskTransport,
  type FinishedTasksListener,
} from '../../../lib/core/finished-task-feed';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';

/** A transport that records what the fanout asks of it; `failOpen` makes the next open fail. */
class RecordingTransport implements FinishedTaskTransport {
  readonly calls: string[] = [];
  deliver: FinishedTasksListener | null = null;
  failOpen = false;

  async open(deliver: FinishedTasksListener): Promise<void> {
    this.calls.push('open');
    if (this.failOpen) {
      this.failOpen = false;
      throw new Error('store down');
    }
    this.deliver = deliver;
  }

  async close(): Promise<void> {
    this.calls.push('close');
    this.deliver = null;
  }
}

const task: FinishedTask = { id: 'a', name: 't', queue: 'q', status: TaskResultStatus.SUCCESSFUL };

describe('FinishedTaskFanout', () => {
  const logged: string[] = [];
  const logger = { error: (message: string) => void logged.push(message) };
  beforeEach(() => logged.splice(0));

  it('opens one transport for every listener, and closes it after the last', async () => {
    const transport = new RecordingTransport();
    const fanout = new FinishedTaskFanout(transport, logger);
    const heard: string[] = [];
    const offA = await fanout.subscribe(() => void heard.push('a'));
    const offB = await fanout.subscribe(() => void heard.push('b'));
    transport.deliver?.([task]);
    await offA();
    await offA();
    transport.deliver?.([task]);
    await offB();
    expect(heard).toEqual(['a', 'b', 'b']);
    expect(transport.calls).toEqual(['open', 'close']);
  });

  it('keeps delivering to the others when a listener throws, and logs it', async () => {
    const transport = new RecordingTransport();
    const fanout = new FinishedTaskFanout(transport, logger);
    const heard: FinishedTask[] = [];
    await fanout.subscribe(() => {
      throw new Error('listener bug');
    });
    await fanout.subscribe((tasks) => void heard.push(...tasks));
    transport.deliver?.([task]);
    expect(heard).toEqual([task]);
    expect(logged).toEqual(['A listener of finished tasks failed']);
  });

  it('keeps the transport open for a subscribe that races the last unsubscribe', async () => {
    const transport = new RecordingTransport();
    const fanout = new FinishedTaskFanout(transport, logger);
    const off = await fanout.subscribe(() => undefined);
    const [, offAgain] = await Promise.all([off(), fanout.subscribe(() => undefined)]);
    expect(transport.deliver).not.toBeNull();
    await offAgain();
    expect(transport.calls).toEqual(['open', 'close']);
  });

  it('rejects a subscribe whose open failed, and opens again for the next', async () => {
    const transport = new RecordingTransport();
    const fanout = new FinishedTaskFanout(transport, logger);
    transport.failOpen = true;
    await expect(fanout.subscribe(() => undefined)).rejects.toThrow('store down');
    const off = await fanout.subscribe(() => undefined);
    expect(transport.calls).toEqual(['open', 'open']);
    await off();
  });
});
