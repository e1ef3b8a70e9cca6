// What every page of the app shares: console errors, layout checks and screenshots.
import { expect, type Page } from '@playwright/test';

export class AppPage {
  /** uncaught page errors and console errors seen since the page object was made */
  readonly errors: string[] = [];

  constructor(readonly page: Page) {
    page.on('pageerror', (e) => this.errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') this.errors.push(`${m.text()} (${m.location().url})`);
    });
  }

  async expectNoHorizontalOverflow(): Promise<void> {
    expect(await this.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  }

  async screenshot(name: string, fullPage = true): Promise<void> {
    await this.page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage });
  }

  expectNoErrors(): void {
    expect(this.errors).toEqual([]);
  }
}
