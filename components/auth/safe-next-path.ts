// Where to go after signing in: only a path on this site (no `//evil.example`, no `https:`),
// so the login page cannot be used as an open redirect.
export function safeNextPath(value: string | undefined | null): string {
  if (
    !value ||
    value.length > 2000 ||
    !value.startsWith('/') ||
    value.startsWith('//') ||
    value.startsWith('/\\') ||
    value.startsWith('/login')
  )
    return '/fleet';
  return value;
}
