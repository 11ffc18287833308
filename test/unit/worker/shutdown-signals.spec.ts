import { EventEmitter } from 'node:events';

import {
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
  const signals = new ShutdownSignals((request) => requests.push(request), source);
  return { emitter, requests, signals };
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

  it('asks for an urgent stop on the second signal, and for nothing after that', () => {
    const { emitter, requests, signals } = setup();
    signals.listen();
    emitter.emit('SIGTERM', 'SIGTERM');
    emitter.emit('SIGINT', 'SIGINT');
    emitter.emit('SIGINT', 'SIGINT');
    expect(requests).toEqual([
      { urgent: false, cause: 'SIGTERM' },
      { urgent: true, cause: 'SIGINT' },
    ]);
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
