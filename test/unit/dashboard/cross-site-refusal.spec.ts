import { crossSiteRefusal } from '../../../lib/dashboard/cross-site-refusal';

const page = { host: 'ops.example.com:8080', 'x-threadmill-dashboard': '1' };

describe('crossSiteRefusal', () => {
  it.each([
    [
      'a request of the page itself',
      { ...page, origin: 'https://ops.example.com:8080', 'sec-fetch-site': 'same-origin' },
    ],
    ['a request that says nothing of where it comes from', page],
    ['an origin listed as trusted', { ...page, origin: 'https://admin.example.com' }],
    ['a request the user made directly', { ...page, 'sec-fetch-site': 'none' }],
  ])('lets through %s', (_what, headers) => {
    expect(crossSiteRefusal(headers, ['https://admin.example.com/'])).toBeNull();
  });

  it.each([
    ['no action header', { host: page.host }, /needs the header "x-threadmill-dashboard: 1"/],
    ['another value of it', { ...page, 'x-threadmill-dashboard': 'yes' }, /needs the header/],
    [
      'another origin',
      { ...page, origin: 'https://evil.example' },
      /Origin "https:\/\/evil.example"/,
    ],
    ['the same host on another port', { ...page, origin: 'https://ops.example.com' }, /Origin/],
    ['an opaque origin', { ...page, origin: 'null' }, /Origin "null"/],
    ['a cross-site fetch', { ...page, 'sec-fetch-site': 'cross-site' }, /a cross-site page/],
    ['a same-site fetch', { ...page, 'sec-fetch-site': 'same-site' }, /a same-site page/],
  ])('refuses %s', (_what, headers, reason) => {
    expect(crossSiteRefusal(headers, [])).toMatch(reason);
  });
});
