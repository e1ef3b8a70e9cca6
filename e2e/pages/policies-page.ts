import { expect, type Locator } from '@playwright/test';
import { AppPage } from './app-page';

export class PoliciesPage extends AppPage {
  async goto(): Promise<void> {
    await this.page.goto('/policies');
    await expect(this.page.getByRole('heading', { name: 'Policies', level: 1 })).toBeVisible();
  }

  /** the organization policy as YAML */
  get policyYaml(): Locator {
    return this.page.locator('#policy-yaml');
  }

  async expectOrganizationEditor(): Promise<void> {
    await expect(this.page.getByRole('heading', { name: 'Sectors' })).toBeVisible();
    await expect(this.page.getByLabel('Sector 1 name')).not.toHaveValue('');
    await expect(this.page.getByRole('heading', { name: 'History' })).toBeVisible();
  }

  /** the YAML shows `text`; special characters match anything, since YAML may quote or escape them */
  async expectYamlMentions(text: string): Promise<void> {
    await expect(this.policyYaml).toHaveValue(new RegExp(text.replace(/[\\^$.*+?()[\]{}|]/g, '.')));
  }

  async openClusterPolicies(): Promise<void> {
    await this.page.getByRole('link', { name: 'Cluster policies' }).click();
    await expect(this.page.locator('tbody tr').first()).toBeVisible();
  }
}
