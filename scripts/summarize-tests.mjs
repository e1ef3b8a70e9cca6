#!/usr/bin/env node
// Reads vitest's and Playwright's JSON reports and prints one closing line: "N passed, N failed",
// after the names of the tests and steps that failed: a CI log is often read from its tail, and
// vitest prints its failures many minutes of e2e output earlier.
import fs from 'node:fs';
import path from 'node:path';

let passed = 0;
let failed = 0;
let skipped = 0;
/** What failed, one line each, with the first lines of its error: printed last, on stdout. */
const failures = [];
const firstLines = (text, n = 4) =>
  String(text ?? '')
    // eslint-disable-next-line no-control-regex -- Playwright's messages carry terminal colours
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, n)
    .map((line) => `      ${line.slice(0, 300)}`);
const [vitestFile, playwrightFile, ...checks] = process.argv.slice(2);

// Non-test steps (typecheck, lint, build) given as NAME=pass|fail.
for (const check of checks) {
  const [name, result] = check.split('=');
  if (result === 'pass') passed++;
  else {
    failed++;
    failures.push(`  step ${name} (its log: test-results/${name}.log)`);
  }
}

if (vitestFile && fs.existsSync(vitestFile)) {
  const r = JSON.parse(fs.readFileSync(vitestFile, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  if ((r.numFailedTestSuites ?? 0) > 0 && (r.numFailedTests ?? 0) === 0) failed += r.numFailedTestSuites;
  for (const file of r.testResults ?? []) {
    const where = path.relative(process.cwd(), file.name ?? '');
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of failedTests) failures.push(`  vitest ${where} › ${t.fullName}`, ...firstLines(t.failureMessages?.join('\n')));
    // A file that failed before its tests ran (an import or a hook) has no failed test to name.
    if (file.status === 'failed' && failedTests.length === 0) failures.push(`  vitest ${where}`, ...firstLines(file.message));
  }
} else {
  failures.push(`  vitest: no report at ${vitestFile}`);
  failed += 1;
}

function walk(suite) {
  for (const spec of suite.specs ?? []) {
    for (const t of spec.tests ?? []) {
      const outcome = t.status; // expected | unexpected | flaky | skipped
      if (outcome === 'expected' || outcome === 'flaky') passed++;
      else if (outcome === 'skipped') skipped++;
      else {
        failed++;
        const error = t.results?.find((result) => result.error)?.error;
        failures.push(`  e2e ${spec.file}:${spec.line} › ${spec.title}`, ...firstLines(error?.message));
      }
    }
  }
  for (const child of suite.suites ?? []) walk(child);
}
if (playwrightFile && fs.existsSync(playwrightFile)) {
  const r = JSON.parse(fs.readFileSync(playwrightFile, 'utf8'));
  for (const s of r.suites ?? []) walk(s);
  if ((r.errors ?? []).length) failed += r.errors.length;
  for (const error of r.errors ?? []) failures.push('  e2e (outside any test)', ...firstLines(error.message));
} else {
  failures.push(`  e2e: no Playwright report at ${playwrightFile}`);
  failed += 1;
}

if (failures.length) console.log(`\nfailed:\n${failures.join('\n')}`);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
