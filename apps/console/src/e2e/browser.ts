import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); the suite never downloads a browser. */
export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Where screenshots for review go (one folder per run, printed by the spec). */
export const SHOTS_DIR = join(__dirname, '../../../../tmp/console-screenshots');

/** Builds the console when its sources are newer than its build (a no-op otherwise). */
export function buildConsole(): void {
  execFileSync(process.execPath, [join(__dirname, '../../scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });
}

export function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM}: apt-get install -y chromium (.ci/run installs it)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

/** A page of its own (own sessionStorage) that records every console error and page error. */
export class ConsolePage {
  readonly errors: string[] = [];
  /**
   * HTTP statuses a test provokes on purpose (a refused key's 401, a late answer's 409): Chromium
   * logs each failed request as a console error, which is the network's line, not the page's.
   */
  readonly expectedStatuses = new Set<number>();
  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
  ) {
    page.on('console', (m) => {
      const status = /^Failed to load resource: the server responded with a status of (\d+)/.exec(m.text());
      if (status && this.expectedStatuses.has(Number(status[1]))) return;
      if (m.type() === 'error') this.errors.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => this.errors.push(`pageerror: ${e.message}`));
  }

  static async open(browser: Browser, baseUrl: string, viewport = LAPTOP): Promise<ConsolePage> {
    const context = await browser.newContext({ viewport });
    const p = new ConsolePage(context, await context.newPage());
    await p.page.goto(`${baseUrl}/console/`);
    return p;
  }

  async signIn(key: string): Promise<void> {
    await this.page.getByLabel('API key').fill(key);
    await this.page.getByRole('button', { name: 'Sign in' }).click();
    await this.page.getByRole('navigation', { name: 'Main' }).waitFor();
  }

  /** The card of a pending approval whose tool and arguments contain `text`. */
  card(text: string) {
    return this.page.locator('.cards li.card').filter({ hasText: text });
  }

  async screenshot(name: string): Promise<void> {
    mkdirSync(SHOTS_DIR, { recursive: true });
    await this.page.screenshot({ path: join(SHOTS_DIR, `${name}.png`), fullPage: true });
  }

  close(): Promise<void> {
    return this.context.close();
  }
}
