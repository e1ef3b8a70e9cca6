#!/usr/bin/env bash
# `npm test`: every test — production build, typecheck + lint + format side by side, unit +
# integration (vitest), e2e (Playwright in Debian's Chromium). Prints one closing line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [[ ! -x "$CHROMIUM" ]]; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "== installing Debian's chromium for the e2e tests"
    apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null || { echo "apt-get install chromium failed"; exit 1; }
  else
    echo "The e2e tests need Chromium at $CHROMIUM. Install it (Debian: sudo apt-get install -y chromium) or set CHROMIUM_PATH." >&2
    exit 1
  fi
fi

# The PostgreSQL tests start throw-away servers with initdb/pg_ctl (tests/support/throwaway-postgres.ts);
# the package's binaries are all they need: no cluster of the package's own, no system service.
has_initdb() { compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || [[ -x "${POSTGRES_BIN:-/nonexistent}/initdb" ]]; }
if ! has_initdb; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "== installing Debian's postgresql for the PostgreSQL tests"
    # a policy-rc.d answering 101 keeps the package's install script from starting the system service
    own_policy=""
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
      printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && own_policy=1
    fi
    apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql >/dev/null
    pg_status=$?
    [[ -n "$own_policy" ]] && rm -f /usr/sbin/policy-rc.d
    [[ $pg_status -eq 0 ]] || { echo "apt-get install postgresql failed"; exit 1; }
  else
    echo "The PostgreSQL tests need initdb and pg_ctl. Install PostgreSQL (Debian: sudo apt-get install -y postgresql) or set POSTGRES_BIN." >&2
    exit 1
  fi
fi

mkdir -p test-results
# Stale reports from an earlier run must not be counted.
rm -f test-results/vitest-results.json test-results/e2e-results.json test-results/*.status
status=0
checks=()
step() { echo; echo "== $*"; }
# Typecheck, lint and build count as one test each in the closing line, so it never says
# "0 failed" while the run fails.
check() { local name=$1; shift; if "$@"; then checks+=("$name=pass"); else checks+=("$name=fail"); status=1; fi; }

# The build comes first: the typecheck then always sees the route types it generates (.next/types,
# next-env.d.ts) instead of whatever an earlier build left, and the CLI tests run the bundle it
# makes (dist/cli), as an installation does. A Turbopack cache costs ~25 s of CPU to write in a
# cold build; where there is none yet (a clean checkout: CI) nothing would read it, so none is written.
step "production build (next build)"
build_cache=on
[[ -d "${NEXT_DIST_DIR:-.next}/cache/turbopack" ]] || build_cache=off
build() {
  { FLEETPLAN_BUILD_CACHE=$build_cache npx next build && node scripts/build-cli.mjs; } >test-results/next-build.log 2>&1 ||
    { tail -40 test-results/next-build.log; return 1; }
}
check build build

# tsc, eslint and prettier run beside vitest instead of in a step of their own before it, at a
# lower CPU priority (nice 10): vitest keeps the cores it can use, and the checks take what its
# waits (servers, child processes, PostgreSQL) leave idle, then the rest once it is done. vitest's
# tests assert on no wall time, so the extra load only slows them. Not beside e2e, whose waits on
# servers are timed: it starts once the checks are done.
# logged NAME COMMAND...: the output to test-results/NAME.log, the exit status to test-results/NAME.status
logged() { local name=$1; shift; "$@" >"test-results/$name.log" 2>&1; echo $? >"test-results/$name.status"; }
report() { step "$2"; cat "test-results/$1.log"; check "$1" test "$(cat "test-results/$1.status")" = 0; }
logged typecheck nice -n 10 npx tsc --noEmit &
logged lint nice -n 10 npx eslint . &
logged format nice -n 10 npx prettier --check --log-level warn . &

step "unit + integration tests (vitest)"
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest-results.json || status=1

wait
report typecheck "typecheck (tsc --noEmit)"
report lint "lint (eslint)"
report format "format (prettier --check)"

step "e2e (Playwright, $CHROMIUM)"
npx playwright test || status=1

node scripts/summarize-tests.mjs test-results/vitest-results.json test-results/e2e-results.json "${checks[@]}" || status=1
exit $status
