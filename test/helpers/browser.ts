/**
 * Headless Chromium for the dashboard's tests and screenshots: the system's /usr/bin/chromium
 * driven by playwright-core (its own browser download is never used). Started as a server so
 * its process is known and can be killed with its whole group if closing it fails.
 */
import { chromium, type Browser, type BrowserServer } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface BrowserHandle {
  browser: Browser;
  close(): Promise<void>;
}

export async function startBrowser(): Promise<BrowserHandle> {
  const server: BrowserServer = await chromium.launchServer({ executablePath: CHROMIUM, args: ARGS, headless: true });
  const pid = server.process().pid;
  const browser = await chromium.connect(server.wsEndpoint());
  return {
    browser,
    async close() {
      await browser.close().catch(() => undefined);
      await server.close().catch(() => undefined);
      // playwright starts Chromium as a process-group leader: nothing of it may outlive the suite
      if (pid) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    },
  };
}
