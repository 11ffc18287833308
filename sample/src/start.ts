import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { sampleConfig } from './sample.config';

/**
 * `npm start`: the sample's web app and a worker pool side by side, stopped
 * together. Each runs in its own process group, so a Ctrl-C in the terminal
 * reaches only this supervisor, which forwards exactly one signal to each; a
 * pool that received the terminal's SIGINT as well would take it as a second
 * signal and release its tasks instead of finishing them. Each also has an
 * IPC channel to this process: if it dies without a word (SIGKILL), the
 * channels close and both stop gracefully on their own.
 */
const commands: Record<string, string[]> = {
  web: [join(__dirname, 'main.js')],
  worker: [join(__dirname, 'worker.js'), 'worker', '--alias', sampleConfig.alias],
};

const children = new Map<string, ChildProcess>();
let stopping = false;

function stopAll(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

for (const [name, args] of Object.entries(commands)) {
  const child = spawn(process.execPath, args, {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  children.set(name, child);
  child.once('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      process.stderr.write(
        `sample: ${name} exited (${signal ?? `code ${code}`}); stopping the rest\n`,
      );
      process.exitCode = 1;
      stopAll('SIGTERM');
    }
  });
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => stopAll(signal === 'SIGINT' ? 'SIGTERM' : signal));
}
