/** What a dashboard route answered. */
export interface Answer<T = unknown> {
  readonly status: number;
  readonly type: string | null;
  readonly body: T;
  readonly headers: Headers;
}

export interface CallOptions {
  readonly body?: unknown;
  /** Headers of the request; the dashboard's action header is sent unless `csrf: false`. */
  readonly headers?: Record<string, string>;
  readonly csrf?: boolean;
}

/**
 * Calls a route of the dashboard mounted at `base` (`http://127.0.0.1:port/threadmill`)
 * over real HTTP, as the page does: JSON in and out, the action header sent.
 */
export function dashboardClient(base: string, defaults: Record<string, string> = {}) {
  return async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: CallOptions = {},
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...defaults, ...options.headers };
    if (options.csrf !== false) headers['x-threadmill-dashboard'] = '1';
    const hasBody = options.body !== undefined;
    if (hasBody) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(hasBody && { body: JSON.stringify(options.body) }),
    });
    const type = response.headers.get('content-type');
    const text = await response.text();
    const body = (type?.includes('json') ? JSON.parse(text) : text) as T;
    return { status: response.status, type, body, headers: response.headers };
  };
}

/** One server-sent event. */
export interface StreamEvent {
  readonly event: string;
  readonly data: unknown;
}

/** A live `/api/stream` connection: the events it got so far, until `close()`. */
export interface EventStreamReader {
  readonly events: StreamEvent[];
  close(): Promise<void>;
}

/** Opens a server-sent events stream and parses each event as it arrives. */
export async function openEventStream(
  url: string,
  headers: Record<string, string>,
): Promise<EventStreamReader> {
  const abort = new AbortController();
  const response = await fetch(url, { headers, signal: abort.signal });
  if (response.status !== 200 || !response.body) {
    throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  }
  const events: StreamEvent[] = [];
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const reading = (async () => {
    let buffered = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const field = (name: string) =>
          block
            .split('\n')
            .filter((line) => line.startsWith(`${name}:`))
            .map((line) => line.slice(name.length + 1).trim())
            .join('\n');
        const data = field('data');
        if (data !== '')
          events.push({ event: field('event') || 'message', data: JSON.parse(data) });
      }
    }
  })().catch((error: unknown) => {
    if (!abort.signal.aborted) throw error;
  });
  return {
    events,
    async close() {
      abort.abort();
      await reading;
    },
  };
}
