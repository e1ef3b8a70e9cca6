// What a new password must be: at least MIN_PASSWORD_LENGTH characters once leading and trailing
// spaces are trimmed (ten spaces are not a password), not one of the commonly used passwords
// (data/PROVENANCE.md), not the username, and not three or fewer characters over and over.
import { COMMON_PASSWORDS } from './data/common-passwords';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './password';

const COMMON = new Set(COMMON_PASSWORDS);

/** Why `password` is not acceptable, or null when it is. */
export function passwordProblem(password: string, username?: string): string | null {
  const trimmed = password.trim();
  if (trimmed.length < MIN_PASSWORD_LENGTH)
    return `must have at least ${MIN_PASSWORD_LENGTH} characters besides leading and trailing spaces`;
  if (password.length > MAX_PASSWORD_LENGTH) return `must have at most ${MAX_PASSWORD_LENGTH} characters`;
  const lower = trimmed.toLowerCase();
  if (COMMON.has(lower)) return 'is one of the most commonly used passwords; choose another';
  if (username && lower === username.toLowerCase()) return 'must not be the username';
  if (new Set(lower).size < 4) return 'needs more than three different characters';
  return null;
}
