#!/usr/bin/env node
// Reads vitest's and Playwright's JSON reports and prints one closing line: "N passed, N failed".
import fs from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
const [vitestFile, playwrightFile, ...checks] = process.argv.slice(2);

// Non-test steps (typecheck, lint, build) given as NAME=pass|fail.
for (const check of checks) {
  const [name, result] = check.split('=');
  if (result === 'pass') passed++;
  else {
    failed++;
    console.error(`step failed: ${name}`);
  }
}

if (vitestFile && fs.existsSync(vitestFile)) {
  const r = JSON.parse(fs.readFileSync(vitestFile, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  if ((r.numFailedTestSuites ?? 0) > 0 && (r.numFailedTests ?? 0) === 0) failed += r.numFailedTestSuites;
} else {
  console.error(`no vitest report at ${vitestFile}`);
  failed += 1;
}

function walk(suite) {
  for (const spec of suite.specs ?? []) {
    for (const t of spec.tests ?? []) {
      const outcome = t.status; // expected | unexpected | flaky | skipped
      if (outcome === 'expected' || outcome === 'flaky') passed++;
      else if (outcome === 'skipped') skipped++;
      else failed++;
    }
  }
  for (const child of suite.suites ?? []) walk(child);
}
if (playwrightFile && fs.existsSync(playwrightFile)) {
  const r = JSON.parse(fs.readFileSync(playwrightFile, 'utf8'));
  for (const s of r.suites ?? []) walk(s);
  if ((r.errors ?? []).length) failed += r.errors.length;
} else {
  console.error(`no Playwright report at ${playwrightFile}`);
  failed += 1;
}

console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
