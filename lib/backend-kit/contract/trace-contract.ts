import type { TaskBackend } from '../../core/task-backend.interface';
import { nextAttempt } from '../../lifecycle/retry-policy';
import type { TaskBackoff } from '../../core/task-options.interface';
import type { TaskRecord, TaskTraceContext } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { readyRecord } from './ready-record';
import type { ContractRunner } from './contract-runner';

const NO_WAIT: TaskBackoff = { type: 'fixed', delayMs: 0, jitter: false };
const TRACE_CONTEXT: TaskTraceContext = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'vendor=opaque,other=1',
};

/**
 * The contract for the trace context stored with a task: read back as it
 * was enqueued, through acquire, a retry and the finished result, and no key
 * at all on a task enqueued outside a trace. Part of describeBackendContract,
 * run on every backend.
 */
export function describeTraceContexts(
  t: ContractRunner,
  subject: () => { backend: TaskBackend; alias: string },
): void {
  const { describe, it, expect } = t;
  describe('trace context', () => {
    const traced = (traceContext: TaskTraceContext = TRACE_CONTEXT): TaskRecord => {
      const record = readyRecord(subject().alias, { name: 'contract.echo' });
      return { ...record, task: { ...record.task, retries: 1, backoff: NO_WAIT, traceContext } };
    };
    const acquireOne = async (): Promise<TaskRecord> => {
      const [acquired] = await subject().backend.leases.acquire(['default'], {
        workerId: 'host:1-0',
        timeoutMs: 0,
      });
      return acquired;
    };
    const failed = (running: TaskRecord): TaskRecord => ({
      ...running,
      status: TaskResultStatus.FAILED,
      finishedAt: new Date(),
      errors: [{ className: 'Error', traceback: 'Error: boom' }],
    });

    it('reads it back as enqueued, through acquire, a retry and the finished result', async () => {
      const { backend } = subject();
      const record = await backend.tasks.enqueue(traced());
      await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
        task: { traceContext: TRACE_CONTEXT },
      });
      const running = await acquireOne();
      expect(running.task.traceContext).toEqual(TRACE_CONTEXT);
      await expect(
        backend.leases.retry([nextAttempt(failed(running), null, new Date())]),
      ).resolves.toEqual(['retried']);
      const again = await acquireOne();
      expect(again.task.traceContext).toEqual(TRACE_CONTEXT);
      await backend.leases.acknowledge([failed(again)]);
      const finished = await backend.tasks.getResult(record.id);
      expect(finished.status).toBe(TaskResultStatus.FAILED);
      expect(finished.task.traceContext).toEqual(TRACE_CONTEXT);
    });

    it('keeps a traceparent without a tracestate as it is', async () => {
      const { backend } = subject();
      const { traceparent } = TRACE_CONTEXT;
      const record = await backend.tasks.enqueue(traced({ traceparent }));
      expect((await backend.tasks.getResult(record.id)).task.traceContext).toEqual({ traceparent });
    });

    it('stores no trace context for a task enqueued outside a trace', async () => {
      const { backend } = subject();
      const record = await backend.tasks.enqueue(
        readyRecord(subject().alias, { name: 'contract.echo' }),
      );
      expect('traceContext' in (await backend.tasks.getResult(record.id)).task).toBe(false);
      expect('traceContext' in (await acquireOne()).task).toBe(false);
    });
  });
}
