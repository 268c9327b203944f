// Debian's Chromium for the web inbox tests, driven by playwright-core; missing means skipped.
import { existsSync } from "node:fs";
import { after, before } from "node:test";
import type { Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests are skipped, or undefined when Chromium is installed. */
export const chromiumMissing = existsSync(CHROMIUM)
  ? undefined
  : `needs Debian's chromium at ${CHROMIUM} (apt-get install chromium)`;

/** Launches headless Chromium with nothing that reaches the network by itself. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Launches Chromium before the file's tests and closes it after them (when it is installed);
 * returns the browser for the tests to open pages in.
 */
export function useChromium(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    if (!chromiumMissing) browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error(chromiumMissing ?? "Chromium did not start");
    return browser;
  };
}
