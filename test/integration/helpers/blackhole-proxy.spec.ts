import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

import { BlackholeProxy } from '../../helpers/blackhole-proxy';
import { waitFor } from '../../helpers/wait-for';

// The proxy the network-blackhole chaos scenario puts between a pool and its
// Redis, against a plain TCP target that records what reaches it.

/** A loopback server that keeps every connection and what arrived on it. */
async function startTarget(): Promise<{
  server: Server;
  port: number;
  sockets: Socket[];
  received: string[];
}> {
  const sockets: Socket[] = [];
  const received: string[] = [];
  const server = createServer((socket) => {
    const index = sockets.push(socket) - 1;
    received[index] = '';
    socket.on('data', (chunk: Buffer) => (received[index] += chunk.toString()));
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { server, port, sockets, received };
}

/** A client of the proxy, with what it has received so far. */
async function connect(port: number): Promise<{ socket: Socket; received: () => string }> {
  const socket = createConnection({ host: '127.0.0.1', port });
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  await once(socket, 'connect');
  return { socket, received: () => received };
}

describe('BlackholeProxy', () => {
  let target: Awaited<ReturnType<typeof startTarget>>;
  let proxy: BlackholeProxy;
  const clients: Socket[] = [];

  beforeEach(async () => {
    target = await startTarget();
    proxy = await BlackholeProxy.start(target.port);
  });

  afterEach(async () => {
    for (const socket of clients.splice(0)) socket.destroy();
    await proxy.close();
    for (const socket of target.sockets) socket.destroy();
    await new Promise<void>((resolve) => target.server.close(() => resolve()));
  });

  it('forwards both ways, and an end from either side', async () => {
    const client = await connect(proxy.port);
    clients.push(client.socket);
    client.socket.write('ping');
    await waitFor(() => target.received[0] === 'ping', { what: 'ping at the target' });
    target.sockets[0].write('pong');
    await waitFor(() => client.received() === 'pong', { what: 'pong at the client' });
    client.socket.end();
    await once(target.sockets[0], 'end');
  });

  it('holds every byte both ways while blackholed, keeps the sockets open, and delivers them in order on restore', async () => {
    const client = await connect(proxy.port);
    clients.push(client.socket);
    let clientClosed = false;
    client.socket.on('close', () => (clientClosed = true));
    await waitFor(() => target.sockets.length === 1, { what: 'the target connection' });
    let targetClosed = false;
    target.sockets[0].on('close', () => (targetClosed = true));

    proxy.blackhole();
    client.socket.write('one,');
    client.socket.write('two');
    target.sockets[0].write('three');
    // Awaited on the proxy's side: once it holds them, neither end can have them.
    await waitFor(() => proxy.held().toTarget === 7 && proxy.held().toClients === 5, {
      what: 'the proxy to hold both directions',
    });
    expect(target.received[0]).toBe('');
    expect(client.received()).toBe('');
    expect(clientClosed || targetClosed).toBe(false);

    proxy.restore();
    client.socket.write(',four');
    await waitFor(() => target.received[0] === 'one,two,four', {
      what: 'the held bytes, in order',
    });
    await waitFor(() => client.received() === 'three', { what: 'the target bytes' });
    expect(proxy.held()).toEqual({ toTarget: 0, toClients: 0 });
  });

  it('accepts a connection while blackholed, and opens it to the target only on restore', async () => {
    proxy.blackhole();
    const client = await connect(proxy.port);
    clients.push(client.socket);
    client.socket.write('hello');
    await waitFor(() => proxy.held().toTarget === 5, { what: 'the proxy to hold the bytes' });
    expect(proxy.connections).toBe(1);
    expect(target.sockets).toHaveLength(0);

    proxy.restore();
    await waitFor(() => target.received[0] === 'hello', { what: 'the bytes after restore' });
  });

  it('holds a client end while blackholed, and delivers it after the bytes before it', async () => {
    const client = await connect(proxy.port);
    clients.push(client.socket);
    await waitFor(() => target.sockets.length === 1, { what: 'the target connection' });
    proxy.blackhole();
    const clientClosed = once(client.socket, 'close');
    client.socket.end('last words');
    await waitFor(() => proxy.held().toTarget === 10, { what: 'the proxy to hold the bytes' });
    expect(target.received[0]).toBe('');

    proxy.restore();
    await once(target.sockets[0], 'end');
    expect(target.received[0]).toBe('last words');
    // The target's own end (its answer to the client's) now reaches the client.
    await clientClosed;
  });

  it('close destroys every connection', async () => {
    const client = await connect(proxy.port);
    clients.push(client.socket);
    proxy.blackhole();
    const closed = once(client.socket, 'close');
    await proxy.close();
    await closed;
    expect(proxy.openConnections).toBe(0);
    // afterEach closes it again: harmless.
  });
});
