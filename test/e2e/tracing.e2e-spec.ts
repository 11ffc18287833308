import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { SpanLine } from '../../sample/src/tracing/json-lines-span.exporter';
import { childPids } from '../helpers/child-pids';
import { freePort } from '../helpers/free-port';
import { waitFor } from '../helpers/wait-for';
import { SAMPLE_DIST } from '../setup/build-sample-cli';

// One trace across three processes: the sample's web app (its HTTP server
// span and the PRODUCER span of the enqueue) and a child of a real worker
// pool (the CONSUMER span of the attempt), each with the OpenTelemetry SDK
// the sample registers when THREADMILL_TRACE_FILE is set, all exporting to
// one JSON-lines file. The sample runs as `npm start` runs it, on SQLite.

const ROOT = join(__dirname, '..', '..');
const START = join(SAMPLE_DIST, 'sample', 'src', 'start.js');

/** OpenTelemetry's SpanKind values, as the sample's exporter writes them. */
const SERVER = 1;
const PRODUCER = 3;
const CONSUMER = 4;

describe('tracing (e2e: HTTP request, enqueue and the attempt in a pool child form one trace)', () => {
  // Two Nest apps and a pool child boot, on 2 shared cores.
  jest.setTimeout(90_000);
  let dir: string;
  let traceFile: string;
  let base: string;
  let supervisor: ChildProcess;
  let closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let isClosed = false;
  const groups = new Set<number>();
  let output = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-tracing-'));
    traceFile = join(dir, 'spans.jsonl');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      THREADMILL_SQLITE_FILE: join(dir, 'sample.db'),
      THREADMILL_TRACE_FILE: traceFile,
      // A line per task, which names its trace.
      THREADMILL_LOG_LEVEL: 'verbose',
      NO_COLOR: '1',
    };
    for (const name of ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'THREADMILL_ALIAS']) delete env[name];
    supervisor = spawn(process.execPath, [START], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    supervisor.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    supervisor.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    closed = new Promise((resolve) =>
      supervisor.once('close', (code, signal) => {
        isClosed = true;
        resolve({ code, signal });
      }),
    );
    await waitFor(() => !isClosed && output.includes(`Listening on ${base}`), {
      timeoutMs: 60_000,
      what: `the web app to listen on ${base}`,
    });
    // The web app and the pool lead groups of their own: recorded while they are still children.
    for (const pid of childPids(supervisor.pid ?? 0)) groups.add(pid);
    await waitFor(() => /Worker child (\d+) is ready/.exec(output), {
      timeoutMs: 60_000,
      what: 'a pool child to be ready',
    });
  });

  afterAll(async () => {
    if (!isClosed) {
      // Ctrl-C as a terminal sends it; then SIGKILL to every group still alive.
      process.kill(-(supervisor.pid ?? 0), 'SIGINT');
      await Promise.race([closed, waitFor(() => isClosed, { timeoutMs: 20_000 }).catch(() => {})]);
      for (const group of [supervisor.pid ?? 0, ...groups]) {
        try {
          process.kill(-group, 'SIGKILL');
        } catch {
          // That group has already exited: nothing of it left to stop.
        }
      }
      await closed;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const spans = (): SpanLine[] =>
    existsSync(traceFile)
      ? readFileSync(traceFile, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as SpanLine)
      : [];

  it('exports the server, producer and consumer spans of one POST as one trace', async () => {
    const response = await fetch(`${base}/tasks/sample.echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ args: ['traced'] }),
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    await waitFor(
      async () => {
        const body = (await (await fetch(`${base}/tasks/${id}`)).json()) as { status: string };
        return body.status === 'SUCCESSFUL';
      },
      { timeoutMs: 30_000, intervalMs: 50, what: `task ${id} to succeed` },
    );
    const consumer = await waitFor(
      () =>
        spans().find(
          (span) => span.kind === CONSUMER && span.attributes['messaging.message.id'] === id,
        ),
      { timeoutMs: 10_000, what: `the consumer span of task ${id} in ${traceFile}` },
    );
    const producer = spans().find(
      (span) => span.kind === PRODUCER && span.attributes['messaging.message.id'] === id,
    );
    expect(producer).toBeDefined();
    const server = spans().find((span) => span.spanId === producer!.parentSpanId);
    // The HTTP instrumentation's span of the POST, in the web app.
    expect(server).toMatchObject({ kind: SERVER, pid: producer!.pid });
    expect(server!.name).toMatch(/^POST\b/);

    // One trace, parent by parent: HTTP request -> enqueue -> attempt.
    expect(producer!.traceId).toBe(server!.traceId);
    expect(consumer.traceId).toBe(server!.traceId);
    expect(consumer.parentSpanId).toBe(producer!.spanId);
    expect(consumer.parentSpanId).toBe(producer!.spanId);

    expect(producer).toMatchObject({
      name: 'send default',
      scope: '@threadmill/nestjs',
      attributes: {
        'messaging.system': 'threadmill',
        'messaging.destination.name': 'default',
        'messaging.operation.type': 'send',
        'threadmill.task.name': 'sample.echo',
      },
    });
    expect(consumer).toMatchObject({
      name: 'process default',
      attributes: {
        'messaging.system': 'threadmill',
        'messaging.operation.type': 'process',
        'threadmill.task.name': 'sample.echo',
        'threadmill.task.attempt': 1,
        'threadmill.task.status': 'SUCCESSFUL',
      },
    });
    // The consumer in a child of the pool.
    const poolChildren = [...output.matchAll(/Worker child (\d+) is ready/g)].map((m) =>
      Number(m[1]),
    );
    expect(poolChildren).toContain(consumer.pid);

    // The pool child's lines for the task name its trace.
    expect(output).toMatch(
      new RegExp(`start sample\\.echo ${id} on \\S+ trace=${server!.traceId}`),
    );
    expect(output).toMatch(
      new RegExp(`SUCCESSFUL sample\\.echo ${id} in .* trace=${server!.traceId}`),
    );
  });

  it('stops every process on Ctrl-C, exit code 0', async () => {
    process.kill(-(supervisor.pid ?? 0), 'SIGINT');
    expect(await closed).toEqual({ code: 0, signal: null });
  });
});
