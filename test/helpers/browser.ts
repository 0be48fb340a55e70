// The console's browser tests: the real app listening on loopback, and Debian's chromium driven by
// playwright-core with a fresh profile (playwright passes it as --user-data-dir and adds --headless).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
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

export interface ConsolePage {
  page: Page;
  /** What the page must never show (watchProblems): assert it is empty at the end. */
  problems: string[];
}

export interface ConsoleFixture {
  /** The app behind the console (for seeding and for checks through its API). */
  readonly t: TestApp;
  readonly browser: BrowserContext;
  /** The app's origin, e.g. http://127.0.0.1:41234. */
  readonly base: string;
  /** A new page, watched for problems, not signed in. */
  open(): Promise<ConsolePage>;
  /** A new page signed in as a new operator application named `desk`, its work shown. */
  signedIn(desk: string): Promise<ConsolePage & { operator: { clientId: string; clientSecret: string } }>;
}

/** The console page set-up of a test file: the app and chromium started before its tests, closed after. */
export function consoleFixture(): ConsoleFixture {
  let session: ConsoleBrowser | undefined;
  before(async () => {
    session = await startConsoleBrowser();
  });
  after(() => session?.close());
  const started = () => {
    if (!session) throw new Error('the console fixture is used before its before hook');
    return session;
  };
  const fixture: ConsoleFixture = {
    get t() {
      return started().t;
    },
    get browser() {
      return started().browser;
    },
    get base() {
      return started().base;
    },
    async open() {
      const page = await started().browser.newPage();
      return { page, problems: watchProblems(page) };
    },
    async signedIn(desk) {
      const operator = await started().t.services.tenancy.createApplication({ name: desk, operator: true });
      const { page, problems } = await fixture.open();
      await signIn(page, started().base, operator.clientId, operator.clientSecret);
      await page.waitForSelector('#work:not([hidden])');
      return { page, problems, operator };
    },
  };
  return fixture;
}
