// Requests to the dashboard's API, relative to the page's <base href>.

type Query = Record<string, string | number | undefined | null>;

/** An answer other than 2xx: its status and the server's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let csrfHeader = 'x-threadmill-dashboard';

/** The header every action carries, as the server's meta names it. */
export function setCsrfHeader(name: string): void {
  csrfHeader = name;
}

/** `path?query` with empty values left out; relative, so it stays under the page's base. */
export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return `api/${path}${search ? `?${search}` : ''}`;
}

/** `segment` made safe to place in a URL path. */
export function part(segment: string): string {
  return encodeURIComponent(segment);
}

async function answer<T>(response: Response): Promise<T> {
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const error = (body as { error?: { message?: string } } | undefined)?.error;
    throw new ApiError(
      response.status,
      error?.message ?? `${response.status} ${response.statusText}`,
    );
  }
  return body as T;
}

export async function getJson<T>(path: string, query: Query = {}): Promise<T> {
  const response = await fetch(apiUrl(path, query), {
    headers: { accept: 'application/json' },
    credentials: 'same-origin',
  });
  return answer<T>(response);
}

/** An action: POST (or PUT) with the header that marks it as the dashboard's. */
export async function act<T>(
  path: string,
  query: Query,
  body: unknown = {},
  method: 'POST' | 'PUT' = 'POST',
): Promise<T> {
  const response = await fetch(apiUrl(path, query), {
    method,
    headers: { 'content-type': 'application/json', [csrfHeader]: '1' },
    credentials: 'same-origin',
    body: JSON.stringify(body),
  });
  return answer<T>(response);
}

/** A readable message for anything thrown. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401 || error.status === 403) return `Not allowed: ${error.message}`;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
