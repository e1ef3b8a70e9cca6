// Acknowledging a provider's version gate (issue 12): `npm start` with the OCM provider against the
// fake OCM (its own process, answering clusters_mgmt's version_gates and gate_agreements). The
// cluster's only update is to a minor behind a gate it has not agreed to: the scheduler holds it
// (VERSION_GATE) and OCM gets no upgrade policy. An operator acknowledges the gate on the cluster
// page; OCM receives exactly one agreement, the activity log names who agreed, and the scheduler's
// next ticks ask OCM for the upgrade.
import { expect, test } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { query, startOcmFleetplan, waitUntil } from './crash/processes';

const ADMIN_PASSWORD = 'version-gate-admin-password';
const CLUSTER = { id: 'c-prod', name: 'prod-1', version: '4.15.20', releases: ['4.15.20', '4.16.3'] };
// shaped as clusters_mgmt's VersionGate (fake-ocm.ts cites the API's schema)
const GATE = {
  id: 'gate-4-16-k8s-1-29',
  version_raw_id_prefix: '4.16',
  label: 'api.openshift.com/gate-ocp',
  value: '4.16',
  description: 'OpenShift 4.16 removes the deprecated flowcontrol.apiserver.k8s.io/v1beta2 APIs.',
  documentation_url: 'https://access.redhat.com/articles/6955381',
  sts_only: false,
};

type FakeWrites = {
  writes: { cluster: string; method: string; version?: string }[];
  gateAgreements: { cluster: string; gateId: string }[];
};

test('an operator acknowledges a version gate on the cluster page; OCM gets one agreement and then the upgrade', async ({ browser }) => {
  test.setTimeout(180_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-version-gate-e2e-'));
  const running = await startOcmFleetplan(dir, { clusters: [CLUSTER], versionGates: [GATE] }, ADMIN_PASSWORD);
  const { fake, dbFile, base } = running;
  try {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/fleet');

    // the organization and its policy, through the Set-up page
    await waitUntil('the scheduler to store the cluster', () => query(dbFile, 'select name from clusters').length === 1, 30_000);
    await page.goto('/setup');
    const name = page.getByRole('form', { name: 'Name the organization' });
    await name.getByLabel('Name').fill('app-sre');
    await name.getByRole('button', { name: 'Save name' }).click();
    await expect(page.getByTestId('setup-org-name')).toHaveText('app-sre');
    await page
      .getByLabel('Organization file (YAML)')
      .fill(
        [
          'name: app-sre',
          'upgradePolicyClusters:',
          '- name: prod-1',
          '  upgradePolicy: {workloads: [web], schedule: "* * * * *", conditions: {soakDays: 0}}',
          '',
        ].join('\n'),
      );
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(page.getByTestId('import-done')).toBeVisible();

    // held by the gate: the cluster page says so, and OCM gets nothing
    await page.goto('/clusters/prod-1');
    const panel = page.getByRole('region', { name: 'Version gates' });
    await expect(panel).toContainText('4.16', { timeout: 30_000 });
    await expect(panel).toContainText('removes the deprecated flowcontrol');
    await expect(page.getByText('VERSION_GATE').first()).toBeVisible({ timeout: 30_000 });
    await page.waitForTimeout(5_000); // a few more ticks
    let seen = await fake.get<FakeWrites>('/_fake/writes');
    expect(seen.writes).toEqual([]);
    expect(seen.gateAgreements).toEqual([]);

    // acknowledge it: a confirm dialog first, then one agreement at OCM and an audit row
    await panel.getByRole('button', { name: 'Acknowledge 4.16 gate…' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('Acknowledge the 4.16 version gate for prod-1?');
    await page.screenshot({ path: 'test-results/screenshots/version-gate-confirm.png' });
    await dialog.getByRole('button', { name: 'Acknowledge', exact: true }).click();
    await expect(panel).toHaveCount(0);
    seen = await fake.get<FakeWrites>('/_fake/writes');
    expect(seen.gateAgreements).toEqual([expect.objectContaining({ cluster: 'c-prod', gateId: GATE.id })]);
    const audit = query<{ actor: string; action: string; target: string }>(
      dbFile,
      "select actor, action, target from audit_log where action = 'cluster.acknowledge-version-gate'",
    );
    expect(audit).toEqual([{ actor: 'admin', action: 'cluster.acknowledge-version-gate', target: 'prod-1@4.16' }]);

    // the scheduler now asks OCM for the upgrade, and never agrees twice
    await expect
      .poll(async () => (await fake.get<FakeWrites>('/_fake/writes')).writes, { timeout: 60_000, intervals: [1_000] })
      .toEqual(expect.arrayContaining([expect.objectContaining({ method: 'POST', version: '4.16.3' })]));
    expect((await fake.get<FakeWrites>('/_fake/writes')).gateAgreements).toHaveLength(1);
    await page.goto('/activity');
    await page.getByRole('tab', { name: 'Policy & admin changes' }).click();
    const change = page.getByRole('row').filter({ hasText: 'prod-1@4.16' });
    await expect(change).toContainText('admin');
    await page.screenshot({ path: 'test-results/screenshots/version-gate-activity.png' });
    await context.close();
  } finally {
    await running.stop();
  }
});
