// The console's browser tests: the real app listening on loopback, and Debian's chromium driven by
// playwright-core with a fresh profile (playwright passes it as --user-data-dir and adds --headless).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from './harness.ts';
import { freePort } from './process.ts';

export interface ConsoleBrowser {
  t: TestApp;
  browser: BrowserContext;
  /** The app's origin, e.g. http://127.0.0.1:41234. */
  base: string;
  close(): Promise<void>;
}

export async function startConsoleBrowser(): Promise<ConsoleBrowser> {
  // The app knows its address before it listens: PUBLIC_URL is the server its API documents name.
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ env: { PUBLIC_URL: base } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    t,
    browser,
    base,
    async close() {
      await browser.close();
      await t.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * What a page must never show, collected: script errors, console errors (other than failed
 * loads — a refused sign-in's 401, the favicon's 404), Content-Security-Policy violations, and any
 * browser dialog (dismissed).
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      problems.push(message.text());
  });
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return problems;
}

/** Opens the console and submits its sign-in form. */
export async function signIn(page: Page, base: string, clientId: string, clientSecret: string): Promise<void> {
  await page.goto(`${base}/console`);
  await page.fill('input[name=clientId]', clientId);
  await page.fill('input[name=clientSecret]', clientSecret);
  await page.click('#sign-in-form button[type=submit]');
}
