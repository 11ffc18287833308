import { createServer } from 'node:net';

/**
 * Jest runs test files in several worker processes at once, and a port found
 * free is only taken later, by a child the test starts: two workers asking at
 * the same moment could be handed the same one. So each worker takes only
 * ports of its own class (the kernel's bind(0) hands out odd ports, hence
 * `port >> 1`), and never hands out one port twice itself.
 */
const PORT_CLASSES = 16;
const WORKER_CLASS = Number(process.env.JEST_WORKER_ID ?? 0) % PORT_CLASSES;
const handedOut = new Set<number>();

/** A port the kernel lets 127.0.0.1 listen on right now (bind to 0, then close). */
function kernelFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now, that no other
 * jest worker of this run can be handed, and that this process has not
 * handed out before.
 */
export async function freePort(): Promise<number> {
  // One bind in 16 lands in this worker's class: a few hundred tries are plenty.
  for (let attempt = 0; attempt < 1000; attempt++) {
    const port = await kernelFreePort();
    if ((port >> 1) % PORT_CLASSES !== WORKER_CLASS || handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port of worker class ${WORKER_CLASS} after 1000 tries`);
}
