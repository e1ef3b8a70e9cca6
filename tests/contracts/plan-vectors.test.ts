// Runs every public contract vector (tests/contracts/vectors/plan, vendored from ../shared) through the engine, compared as the
// contracts README says. Vectors are read at run time so a new or changed vector fails `npm test`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideUpgrades } from '@/server/domain/plan/decide-upgrades';
import { parsePlanDocument } from '@/server/domain/plan/parse-plan-document';
import type { PlanResult } from '@/server/domain/plan/types';

const VECTOR_DIR = path.join(__dirname, 'vectors/plan');

type ExpectedDecision = { cluster: string; action?: string; version?: string; nextRun?: string; reason?: string };
type ExpectedSuccess = { now: string; decisions: ExpectedDecision[]; versionData: PlanResult['versionData'] };
type ExpectedError = { error: string[]; errorLine?: number };
type Vector = { name: string; kind?: string; args?: { now?: string }; input: unknown; expected: ExpectedSuccess | ExpectedError };

function loadVectors(): Vector[] {
  return readdirSync(VECTOR_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(VECTOR_DIR, f), 'utf8')) as Vector);
}

function nowOf(v: Vector): string | undefined {
  if (v.args?.now) return v.args.now;
  if (typeof v.input === 'object' && v.input !== null) {
    const now = (v.input as { now?: unknown }).now;
    return typeof now === 'string' ? now : undefined;
  }
  return /^now:\s*["']?([^"'\s]+)/m.exec(v.input as string)?.[1];
}

const vectors = loadVectors();

describe('contract vectors (contracts/vectors/plan)', () => {
  it('finds the public vectors', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(106);
  });

  it.each(vectors.map((v) => [v.name, v] as const))('%s', async (_name, v) => {
    const text = typeof v.input === 'string' ? v.input : JSON.stringify(v.input, null, 1);
    const now = nowOf(v);
    const parsed = await parsePlanDocument(text, now === undefined ? {} : { now });
    const expected = v.expected;
    if ('error' in expected) {
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      const lines = parsed.problems.map((p) => `${p.path}: ${p.message}`);
      for (const p of expected.error)
        expect(
          lines.some((l) => l.includes(p)),
          `${p} in ${lines.join(' | ')}`,
        ).toBe(true);
      if (expected.errorLine !== undefined) expect(parsed.problems.map((p) => p.line)).toContain(expected.errorLine);
      return;
    }
    expect(parsed.ok, parsed.ok ? '' : JSON.stringify(parsed.problems)).toBe(true);
    if (!parsed.ok) return;
    const out = decideUpgrades(parsed.input);
    expect(out.decisions.map((d) => d.cluster)).toEqual(expected.decisions.map((d) => d.cluster));
    expected.decisions.forEach((e, i) => {
      const o = out.decisions[i] as unknown as Record<string, unknown>;
      for (const f of ['action', 'version', 'nextRun', 'reason'] as const) {
        if (f in e) expect(o[f], `${e.cluster}.${f}`).toBe(e[f]);
      }
    });
    expect(Date.parse(out.versionData.checkIn ?? '')).toBe(Date.parse(expected.versionData.checkIn ?? ''));
    const ev = expected.versionData.versions;
    const ov = out.versionData.versions;
    expect(Object.keys(ov).sort()).toEqual(Object.keys(ev).sort());
    for (const [version, entry] of Object.entries(ev)) {
      const got = ov[version]?.workloads ?? {};
      expect(Object.keys(got).sort(), version).toEqual(Object.keys(entry.workloads).sort());
      for (const [w, soak] of Object.entries(entry.workloads)) {
        const o = got[w];
        expect(Math.abs((o?.soakDays ?? NaN) - soak.soakDays), `${version}/${w}.soakDays`).toBeLessThanOrEqual(1e-9);
        expect(new Set(o?.reporting), `${version}/${w}.reporting`).toEqual(new Set(soak.reporting));
      }
    }
  });
});
