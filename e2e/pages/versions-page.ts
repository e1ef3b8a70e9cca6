import { expect, type Locator } from '@playwright/test';
import { AppPage } from './app-page';

export class VersionsPage extends AppPage {
  async goto(): Promise<void> {
    await this.page.goto('/versions');
    await expect(this.page.getByRole('heading', { name: 'Versions', level: 1 })).toBeVisible();
  }

  get historyRows(): Locator {
    return this.page.getByRole('table', { name: 'Version history' }).locator('tbody tr');
  }

  blockedRow(pattern: string): Locator {
    return this.page.locator(`tr[data-pattern="${pattern.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`);
  }
}
