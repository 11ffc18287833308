import { Injectable } from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';

import { Task, currentTaskContext } from '../../../lib';

/** What `sample.cpu` reports, so a caller can see which process ran it and when. */
export interface CpuReport {
  pid: number;
  startedAtMs: number;
  finishedAtMs: number;
}

/**
 * The sample's tasks. Their names are stable: the docs, the e2e tests and the
 * benchmarks enqueue them by name (`npm run -s cli -- enqueue sample.echo --args '[1]'`).
 */
@Injectable()
export class SampleTasks {
  /** Returns its arguments. */
  @Task({ name: 'sample.echo' })
  echo(...args: unknown[]): unknown[] {
    return args;
  }

  /** Waits `ms` without holding the CPU (an I/O-bound task); a cancel or timeout ends the wait. */
  @Task({ name: 'sample.sleep' })
  async sleep(ms: number): Promise<number> {
    await delay(ms, undefined, { signal: currentTaskContext()?.signal });
    return ms;
  }

  /** Burns the CPU synchronously for `ms`: one such task holds its whole process. */
  @Task({ name: 'sample.cpu' })
  cpu(ms: number): CpuReport {
    const startedAtMs = Date.now();
    while (Date.now() - startedAtMs < ms) {
      // Busy on purpose: this task stands for CPU-bound work.
    }
    return { pid: process.pid, startedAtMs, finishedAtMs: Date.now() };
  }

  /** Throws an Error with the given message (the task ends FAILED). */
  @Task({ name: 'sample.fail' })
  fail(message: string): never {
    throw new Error(message);
  }
}
