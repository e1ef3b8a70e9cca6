// A kubeconfig that cannot be parsed must not put its contents (tokens, keys) into the error,
// which reaches tick rows, the server log and the Set-up page.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeReadError } from './kubeconfig';
import { parse } from 'yaml';

describe('kubeconfig read errors', () => {
  it('a YAML error says where, not what the line holds', () => {
    const text = 'users:\n- name: u\n  user:\n    token: sha256~TOPSECRET\n   bad: indent\n';
    let caught: unknown;
    try {
      parse(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).message).toContain('TOPSECRET'); // what the library says, and why it is not passed on
    const described = describeReadError(caught);
    expect(described).toMatch(/^not valid YAML \(\w+ at line \d+, column \d+\)$/);
    expect(described).not.toContain('TOPSECRET');
  });

  it('a file that cannot be read says why by its error code only', () => {
    const missing = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kubeconfig-')), 'nope.yaml');
    let caught: unknown;
    try {
      fs.readFileSync(missing, 'utf8');
    } catch (err) {
      caught = err;
    }
    expect(describeReadError(caught)).toBe('cannot read the file (ENOENT)');
  });
});
