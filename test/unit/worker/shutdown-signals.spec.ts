import { EventEmitter } from 'node:events';

import {
  SAME_STOP_WINDOW_MS,
  SHUTDOWN_SIGNALS,
  ShutdownSignals,
  type ShutdownRequest,
  type SignalSource,
} from '../../../lib/worker/shutdown-signals';

function setup() {
  const emitter = new EventEmitter();
  const source: SignalSource = {
    on: (event, listener) => emitter.on(event, listener),
    off: (event, listener) => emitter.off(event, listener),
  };
  const requests: ShutdownRequest[] = [];
  const clock = { now: 1_000_000 };
  const signals = new ShutdownSignals(
    (request) => requests.push(request),
    source,
    () => clock.now,
  );
  return { emitter, requests, signals, clock };
}

describe('ShutdownSignals', () => {
  it.each(SHUTDOWN_SIGNALS)('asks for a graceful stop on the first %s', (signal) => {
    const { emitter, requests, signals } = setup();
    signals.listen();
    emitter.emit(signal, signal);
    expect(requests).toEqual([{ urgent: false, cause: signal }]);
    expect(signals.stopping).toBe(true);
    expect(signals.urgent).toBe(false);
    signals.dispose();
  });

  it('asks for an urgent stop on a signal a second or more after the first, and for nothing after that', () => {
    const { emitter, requests, signals, clock } = setup();
    signals.listen();
    emitter.emit('SIGTERM', 'SIGTERM');
    clock.now += SAME_STOP_WINDOW_MS;
    emitter.emit('SIGINT', 'SIGINT');
    emitter.emit('SIGINT', 'SIGINT');
    expect(requests).toEqual([
      { urgent: false, cause: 'SIGTERM' },
      { urgent: true, cause: 'SIGINT' },
    ]);
    signals.dispose();
  });

  it('Ctrl-C on npx nest start: a second signal within a second of the first is the same graceful stop', () => {
    const { emitter, requests, signals, clock } = setup();
    signals.listen();
    // The terminal's SIGINT, then the one `nest start` forwards.
    emitter.emit('SIGINT', 'SIGINT');
    clock.now += SAME_STOP_WINDOW_MS - 1;
    emitter.emit('SIGINT', 'SIGINT');
    expect(requests).toEqual([{ urgent: false, cause: 'SIGINT' }]);
    expect(signals.urgent).toBe(false);
    clock.now += 1;
    emitter.emit('SIGINT', 'SIGINT');
    expect(requests.map((r) => r.urgent)).toEqual([false, true]);
    signals.dispose();
  });

  it('takes a signal soon after a stop asked by the pool as that same stop, and an urgent request at once', () => {
    const { emitter, requests, signals } = setup();
    signals.listen();
    signals.request({ urgent: false, cause: 'pool' });
    emitter.emit('SIGINT', 'SIGINT');
    expect(requests).toEqual([{ urgent: false, cause: 'pool' }]);
    signals.request({ urgent: true, cause: 'pool' });
    expect(requests.map((r) => r.urgent)).toEqual([false, true]);
    signals.dispose();
  });

  it('counts a stop that arrives both as a signal and as a request once', () => {
    const { emitter, requests, signals } = setup();
    signals.listen();
    emitter.emit('SIGINT', 'SIGINT');
    signals.request({ urgent: false, cause: 'pool' });
    expect(requests).toHaveLength(1);
    signals.request({ urgent: true, cause: 'pool' });
    expect(requests.map((r) => r.urgent)).toEqual([false, true]);
    signals.dispose();
  });

  it('stops listening on dispose', () => {
    const { emitter, requests, signals } = setup();
    signals.listen();
    signals.dispose();
    for (const signal of SHUTDOWN_SIGNALS) expect(emitter.listenerCount(signal)).toBe(0);
    emitter.emit('SIGTERM', 'SIGTERM');
    expect(requests).toEqual([]);
  });
});
