// Debian's Chromium for the web inbox tests, driven by playwright-core; missing means skipped.
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { after, before } from "node:test";
import type { Browser, Page } from "playwright-core";
import { repoRoot } from "./paths.js";

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

/**
 * Saves `docs/screenshots/<name>.png` when CODEX_HARNESS_SCREENSHOTS=1 (the docs' pictures);
 * otherwise does nothing.
 */
export async function screenshot(shown: Page, name: string): Promise<void> {
  if (process.env.CODEX_HARNESS_SCREENSHOTS !== "1") return;
  const folder = path.join(repoRoot, "docs", "screenshots");
  mkdirSync(folder, { recursive: true });
  await shown.screenshot({ path: path.join(folder, `${name}.png`), fullPage: true });
}
