// Who runs a command line that changes the database (db:seed --reset, restore): the audit log
// names them as `cli:<user>`.
import os from 'node:os';

export function osUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? `uid:${process.getuid?.() ?? 'unknown'}`;
  }
}
