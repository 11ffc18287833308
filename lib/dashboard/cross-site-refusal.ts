import type { IncomingHttpHeaders } from 'node:http';
import { dashboardCrossSite, dashboardCsrfHeaderMissing } from './dashboard.messages';
import { CSRF_HEADER } from './dashboard-settings';

/** What browsers say of a request made by the page itself (or typed in by the user). */
const SAME_SITE_FETCHES = new Set(['same-origin', 'none']);

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/**
 * Why an action's request is refused as possibly forged by another site, or
 * null when it is not: it must carry the dashboard's header (which a page of
 * another origin cannot send without a CORS preflight), and when the browser
 * says where it came from (`Sec-Fetch-Site`, `Origin`), that must be this
 * very origin: the request's Host, or one of `trustedOrigins`.
 */
export function crossSiteRefusal(
  headers: IncomingHttpHeaders,
  trustedOrigins: readonly string[],
): string | null {
  if (single(headers[CSRF_HEADER]) !== '1') return dashboardCsrfHeaderMissing(CSRF_HEADER);
  const fetchSite = single(headers['sec-fetch-site']);
  if (fetchSite !== undefined && !SAME_SITE_FETCHES.has(fetchSite.toLowerCase())) {
    return dashboardCrossSite(`a ${fetchSite} page (Sec-Fetch-Site)`);
  }
  const origin = single(headers.origin);
  if (origin === undefined) return null;
  if (trustedOrigins.some((trusted) => trusted.replace(/\/+$/, '') === origin)) return null;
  let originHost: string | null;
  try {
    originHost = new URL(origin).host;
  } catch {
    originHost = null;
  }
  const host = single(headers.host);
  return originHost !== null && host !== undefined && originHost === host.toLowerCase()
    ? null
    : dashboardCrossSite(`Origin ${JSON.stringify(origin)}`);
}
