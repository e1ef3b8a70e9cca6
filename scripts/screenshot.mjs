#!/usr/bin/env node
// Dev tool: screenshot pages of a running app in Debian's Chromium.
// usage: node scripts/screenshot.mjs BASE_URL OUT_DIR PATH [PATH...]   (env WIDTH, HEIGHT, DARK=1)
import { chromium } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';

const [base, outDir, ...paths] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});
const page = await browser.newPage({
  viewport: { width: Number(process.env.WIDTH || 1280), height: Number(process.env.HEIGHT || 800) },
  colorScheme: process.env.DARK ? 'dark' : 'light',
});
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
for (const p of paths) {
  await page.goto(base + p, { waitUntil: 'load', timeout: 20000 });
  await page.waitForLoadState('networkidle', { timeout: 8000 }).catch(() => {});
  await page.waitForTimeout(Number(process.env.WAIT || 800));
  const file = path.join(outDir, (p.replace(/[^a-z0-9]+/gi, '_') || 'root') + '.png');
  await page.screenshot({ path: file, fullPage: !!process.env.FULL });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  console.log(`${p} -> ${file}${overflow ? ' (HORIZONTAL OVERFLOW)' : ''}`);
}
if (errors.length) console.log('page errors:\n' + errors.join('\n'));
await browser.close();
