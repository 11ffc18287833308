import { createServer } from 'node:net';

import { freePort } from '../../helpers/free-port';

describe('freePort', () => {
  it('hands out ports that 127.0.0.1 can listen on, never the same one twice', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 20; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports.slice(0, 3)) {
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("keeps to this jest worker's class of ports, so no other worker is handed the same one", async () => {
    const workerClass = Number(process.env.JEST_WORKER_ID ?? 0) % 16;
    for (let i = 0; i < 5; i++) expect(((await freePort()) >> 1) % 16).toBe(workerClass);
  });
});
