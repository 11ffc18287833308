import { writeFileSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { BullmqRunner } from './bullmq.runner';
import { copyLuaAssets, findProjectRoot } from './project-paths';
import type { QueueRunner } from './queue-runner.interface';
import { BenchRedisServer } from './redis-server';

/**
 * CPU profile of one consumer draining no-op tasks, the fill left out:
 * `node <out>/bench/profile.js [threadmill|bullmq] [tasks] [slots|bulk]`
 * (`bulk`: profile bulk enqueue of `tasks` in batches of 1000 instead).
 * Writes a .cpuprofile (open it in Chrome DevTools) and prints where the
 * consumer's self time goes, by function and by area.
 */
async function main(): Promise<void> {
  const [system = 'threadmill', tasksText = '20000', slotsText = '100'] = process.argv.slice(2);
  const tasks = Number(tasksText);
  const bulk = slotsText === 'bulk';
  const slots = bulk ? 100 : Number(slotsText);
  const server = await BenchRedisServer.start();
  let runner: QueueRunner | null = null;
  try {
    if (system === 'bullmq') runner = new BullmqRunner(server.url);
    else {
      copyLuaAssets(findProjectRoot());
      const { ThreadmillRunner } = await import('./threadmill.runner');
      runner = await ThreadmillRunner.create(server.url);
    }
    await server.reset();
    await runner.fill(2000);
    const warmUp = await runner.prepareDrain(2000, slots); // scripts loaded, code optimized
    await warmUp.run();
    await warmUp.close();
    await server.reset();
    if (!bulk) await runner.fill(tasks);
    else await runner.prepareEnqueue?.();
    const drain = bulk
      ? {
          run: () => (runner as QueueRunner).enqueueBulk(tasks, 1000),
          close: async () => undefined,
        }
      : await runner.prepareDrain(tasks, slots);
    const session = new Session();
    session.connect();
    const post = <T>(method: string, params?: object): Promise<T> =>
      new Promise((resolve, reject) =>
        session.post(method, params, (error, result) =>
          error ? reject(error) : resolve(result as T),
        ),
      );
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 100 });
    await post('Profiler.start');
    const started = performance.now();
    const cpu = process.cpuUsage();
    await drain.run();
    const used = process.cpuUsage(cpu);
    const seconds = (performance.now() - started) / 1000;
    const { profile } = await post<{ profile: Profiler.Profile }>('Profiler.stop');
    session.disconnect();
    await drain.close();
    const path = join(tmpdir(), `${system}-consumer-${Date.now()}.cpuprofile`);
    writeFileSync(path, JSON.stringify(profile));
    console.log(
      `${system}: ${tasks} tasks, ${bulk ? 'bulk enqueue' : `${slots} slots`}, ${Math.round(tasks / seconds)} tasks/s, ` +
        `${((used.user + used.system) / tasks).toFixed(1)} µs CPU per task; profile ${path}`,
    );
    summarize(profile);
  } finally {
    await runner?.close();
    await server.stop();
  }
}

/** Self time by function and by area (ours, ioredis, bullmq, node, GC, idle). */
function summarize(profile: Profiler.Profile): void {
  const selfByNode = new Map<number, number>();
  const { samples = [], timeDeltas = [] } = profile;
  samples.forEach((id, i) => selfByNode.set(id, (selfByNode.get(id) ?? 0) + (timeDeltas[i] ?? 0)));
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const self = selfByNode.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    total += self;
    const file = url.replace(/^.*\/(node_modules\/(\.cache\/threadmill-bench\/)?)?/, '');
    const key = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + self);
    byArea.set(areaOf(url, functionName), (byArea.get(areaOf(url, functionName)) ?? 0) + self);
  }
  const print = (title: string, map: Map<string, number>, top: number): void => {
    console.log(`\n${title} (share of busy self time)`);
    for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`);
    }
  };
  print('by area', byArea, 12);
  print('by function', byFunction, 30);
}

function areaOf(url: string, functionName: string): string {
  if (functionName.startsWith('(')) return functionName; // (garbage collector), (program)
  const lib = /\/lib\/([^/]+(?:\/[^/]+)?)\//.exec(url);
  if (url.includes('threadmill-bench/lib/') && lib) return `threadmill lib/${lib[1]}`;
  if (url.includes('threadmill-bench/bench/')) return 'bench';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg && !url.includes('.cache')) return pkg[1];
  if (url.startsWith('node:')) return 'node internals';
  return url ? 'other' : 'native/builtin';
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
