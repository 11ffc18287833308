import { once } from 'node:events';
import { createServer, type Server } from 'node:net';

import { Redis } from 'ioredis';

import { freePort } from '../../helpers/free-port';
import { startRedisServer, type RedisServerHandle } from '../../helpers/redis-server';

// The private redis-server a test starts, when the port it was to listen on
// is taken by the time it binds it.

describe('startRedisServer on a taken port', () => {
  let taken: Server;
  let takenPort: number;
  let server: RedisServerHandle | undefined;

  beforeEach(async () => {
    // Whoever holds the port: it hangs up on the PINGs that reach it.
    taken = createServer((socket) => socket.destroy());
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const address = taken.address();
    takenPort = typeof address === 'object' && address ? address.port : 0;
  });

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  });

  it('fails at once with what the server said when the port was named', async () => {
    const startedAt = Date.now();
    const failure = await startRedisServer([], takenPort).then(
      (started) => {
        server = started;
        return new Error('a server started on a taken port');
      },
      (error: unknown) => error as Error,
    );
    expect(failure.message).toMatch(
      /exited .* before it answered PING[\s\S]*Address already in use/,
    );
    // Not after the 10 s wait for an answer.
    expect(Date.now() - startedAt).toBeLessThan(5000);
  });

  it('starts on another free port when the one it found is taken', async () => {
    const handedOut: number[] = [];
    server = await startRedisServer([], undefined, {
      // The first port it is handed is taken (as by another process since it was found free).
      freePort: async () => {
        const port = handedOut.length === 0 ? takenPort : await freePort();
        handedOut.push(port);
        return port;
      },
    });
    expect(handedOut).toHaveLength(2);
    expect(server.port).toBe(handedOut[1]);
    const client = new Redis(server.url);
    try {
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });
});
