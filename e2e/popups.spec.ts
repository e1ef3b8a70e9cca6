// The top bar's popups (user menu, simulator clock) close like the table's column chooser: on
// Escape and on a press outside them, while a press inside keeps them open (components/ui/use-dismiss.ts).
import { expect, test } from '@playwright/test';
import { signIn } from './helpers';

test.describe('Top bar popups', () => {
  test('the user menu closes on Escape and on a click outside it', async ({ page }) => {
    await signIn(page);
    const toggle = page.getByRole('button', { name: /^Signed in as / });
    const menu = page.getByRole('menu');

    await toggle.click();
    await expect(menu).toBeVisible();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await page.keyboard.press('Escape');
    await expect(menu).toHaveCount(0);
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');

    await toggle.click();
    await menu.getByText(/Signed in as/).click(); // a click inside keeps it open
    await expect(menu).toBeVisible();
    await page.getByRole('heading', { level: 1 }).click();
    await expect(menu).toHaveCount(0);
  });

  test('the simulator clock closes on Escape and on a click outside it', async ({ page }) => {
    await signIn(page);
    const toggle = page.getByTestId('sim-clock');
    const dialog = page.getByRole('dialog', { name: 'Simulator clock' });

    await toggle.click();
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);

    await toggle.click();
    await dialog.getByText('Simulator clock', { exact: true }).click(); // a click inside keeps it open
    await expect(dialog).toBeVisible();
    await page.getByRole('heading', { level: 1 }).click();
    await expect(dialog).toHaveCount(0);
  });
});
