/**
 * Headless Chromium for the dashboard's tests: the bench's helper (bench/browser.ts), one for
 * both: the system's /usr/bin/chromium driven by playwright-core, started as a server so its
 * process group can be killed if closing it fails.
 */
export { CHROMIUM, startBrowser, type BrowserHandle } from '../../bench/browser.js';
