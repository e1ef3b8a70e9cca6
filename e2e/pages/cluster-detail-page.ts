import { expect, type Locator } from '@playwright/test';
import { AppPage } from './app-page';

export class ClusterDetailPage extends AppPage {
  async goto(name: string): Promise<void> {
    await this.page.goto(`/clusters/${encodeURIComponent(name)}`);
  }

  heading(name: string): Locator {
    return this.page.getByRole('heading', { name, level: 1 });
  }

  get nextRuns(): Locator {
    return this.page.getByRole('list', { name: /Next runs in/ });
  }

  /** the explanation of the engine's decision, the next runs (zone and UTC), candidates and history */
  async expectDecisionExplained(name: string): Promise<void> {
    await expect(this.heading(name)).toBeVisible();
    await expect(this.page.getByText('Engine decision now')).toBeVisible();
    await expect(this.page.getByTestId('decision-message')).not.toBeEmpty();
    await expect(this.page.getByRole('heading', { name: /Next schedule runs/ })).toBeVisible();
    await expect(this.nextRuns.locator('li')).toHaveCount(5);
    await expect(this.nextRuns).toContainText('UTC');
    await expect(
      this.page.getByRole('table', { name: 'Candidate versions' }).or(this.page.getByText('No available upgrades')),
    ).toBeVisible();
    await expect(this.page.getByRole('heading', { name: 'Upgrade history' })).toBeVisible();
  }
}
