import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { signIn } from './helpers';

function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon|status of 4\d\d/i.test(m.text() + (m.location().url ?? ''))) errors.push(m.text());
  });
  return errors;
}

test.describe('Paths page', () => {
  test('4.6.30 → eus-4.8: path, graph, runbook and the imageset download', async ({ page }) => {
    await signIn(page);
    const errors = collectErrors(page);
    await page.goto('/paths');
    await expect(page.getByRole('heading', { name: 'Upgrade paths', level: 1 })).toBeVisible();
    await page.getByLabel('From version').fill('4.6.30');
    await page.getByLabel('Target channel').selectOption('eus-4.8');
    await page.getByRole('button', { name: 'Find path' }).click();

    const summary = page.getByTestId('path-summary');
    await expect(summary).toContainText('path found');
    await expect(page.getByRole('list', { name: 'Path' })).toHaveText(/4\.6\.30\s*→\s*4\.7\.60\s*→\s*4\.8\.54/);
    // the graph: columns by minor, the path's releases highlighted, what is omitted said
    await expect(page.locator('.release-node.on-path')).toHaveCount(3);
    await expect(page.locator('.react-flow__edge.on-path')).toHaveCount(2);
    await expect(page.getByTestId('graph-omitted')).toContainText(/updates omitted/);
    // releases with payloads, safety checks, duration with its model
    await expect(page.getByRole('region', { name: 'Releases to mirror' })).toContainText(
      'quay.io/openshift-release-dev/ocp-release@sha256:',
    );
    await expect(page.getByTestId('skew-ok')).toBeVisible();
    await expect(page.getByTestId('duration-model')).toContainText('Per hop:');
    // runbook: channel switch, pause, each hop, unpause
    const runbook = page.getByTestId('runbook');
    await expect(runbook).toContainText('oc adm upgrade channel eus-4.8');
    await expect(runbook).toContainText(`oc patch mcp/worker --type merge -p '{"spec":{"paused":true}}'`);
    await expect(runbook).toContainText('oc adm upgrade --to=4.7.60');
    await expect(runbook).toContainText('oc adm upgrade --to=4.8.54');
    await expect(runbook).toContainText(`oc patch mcp/worker --type merge -p '{"spec":{"paused":false}}'`);
    await expect(page.getByTestId('mirror-list')).toContainText('4.7.60 quay.io/');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download imageset-config.yaml' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('imageset-config.yaml');
    const yaml = fs.readFileSync(await download.path(), 'utf8');
    expect(yaml).toContain('apiVersion: mirror.openshift.io/v2alpha1');
    expect(yaml).toContain("minVersion: '4.7.60'");

    fs.mkdirSync('test-results/screenshots', { recursive: true });
    await page.screenshot({ path: 'test-results/screenshots/paths.png', fullPage: true });
    expect(errors).toEqual([]);
  });

  test('a source missing from the EUS channel is explained', async ({ page }) => {
    await signIn(page);
    await page.goto('/paths');
    await page.getByLabel('From version').fill('4.9.0');
    await page.getByLabel('Target channel').selectOption('eus-4.8');
    await page.getByRole('button', { name: 'Find path' }).click();
    const summary = page.getByTestId('path-summary');
    await expect(summary).toContainText('SOURCE_NOT_IN_CHANNEL');
    await expect(summary).toContainText('Channels containing 4.9.0');
    await expect(page.getByTestId('eus-hint')).toContainText('EUS channels lag GA');
  });

  test('a version the stored graphs do not hold is said to be one, not explained as a lagging EUS channel', async ({ page }) => {
    await signIn(page);
    await page.goto('/paths');
    await page.getByLabel('From version').fill('4.6.999');
    await page.getByLabel('Target channel').selectOption('eus-4.8');
    await page.getByRole('button', { name: 'Find path' }).click();
    await expect(page.getByTestId('path-warnings')).toContainText('4.6.999 is not a release in the stored graphs (they hold');
    await expect(page.getByTestId('path-summary')).toBeVisible();
    await expect(page.getByTestId('eus-hint')).toHaveCount(0);
  });

  test('uploading a broken graph shows what is wrong and stores nothing', async ({ page }) => {
    await signIn(page);
    await page.goto('/paths');
    await page.getByRole('button', { name: /^Graphs/ }).click();
    const rows = page.getByRole('region', { name: 'Stored graphs' }).locator('tbody tr');
    await expect(rows.first()).toBeVisible();
    const before = await rows.count();
    await page.getByLabel('Graph file').setInputFiles({
      name: 'broken-graph.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"version":1,"nodes":[{"version":"4.7.1","payload":"x"},{"version":"4.7.2","payload":"y"}],"edges":[[1,2]]}'),
    });
    await page.getByRole('button', { name: 'Upload graph' }).click();
    const message = page.getByTestId('graph-upload-message');
    await expect(message).toContainText('broken-graph.json is not a valid update graph');
    await expect(message).toContainText('node index 2 is out of range');
    await expect(rows).toHaveCount(before);
    await page.screenshot({ path: 'test-results/screenshots/paths-upload-error.png' });
  });
});
