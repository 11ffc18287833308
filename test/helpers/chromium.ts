import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, as CI installs it when missing. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * A headless Chromium with nothing running on its own (no sync, updates or
 * background fetches); each test opens fresh contexts (empty profiles) in it.
 * scripts/dashboard-screenshot.mjs takes the docs' pictures with it too.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
