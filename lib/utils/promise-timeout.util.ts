import { OperationTimeoutError } from '../core/errors/operation-timeout.error';

/**
 * Settle with `promise`, or reject with OperationTimeoutError naming `what`
 * after `timeoutMs`. The timer never keeps the process alive and is cleared
 * as soon as the promise settles.
 */
export function promiseTimeout<T>(
  promise: Promise<T>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new OperationTimeoutError(`${what} did not answer within ${timeoutMs} ms.`)),
      timeoutMs,
    );
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
