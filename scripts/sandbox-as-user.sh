#!/usr/bin/env bash
# The OS sandbox's tests, and the permission tests root cannot run, as an unprivileged user
# (CI runs the sandbox tests as root too).
#
# Run as root from anywhere, after the packages are built: it creates the user
# (idempotently, with useradd), then runs the process kit's sandbox tests and
# tool-bash's sandbox tests as that user (runuser) with AMPLIFIER_REQUIRE_SANDBOX=1,
# and fails if any test failed or was skipped. The checkout stays root-owned:
# the user only reads it (it must be world-readable, as a checkout is), and
# gets a temp directory of its own for TMPDIR, HOME and the test reports.
#
#   scripts/sandbox-as-user.sh [user]      (default user: amplifier-sandbox)
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$(pwd)
user=${1:-amplifier-sandbox}

if [ "$(id -u)" != 0 ]; then
  echo "sandbox-as-user: run me as root (I create the user '$user' and switch to it); found uid $(id -u)" >&2
  exit 2
fi
if ! id -u "$user" >/dev/null 2>&1; then
  useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
fi
if [ "$(id -u "$user")" = 0 ]; then
  echo "sandbox-as-user: '$user' has uid 0; give the name of an unprivileged user" >&2
  exit 2
fi

# The user must be able to reach the checkout: every folder above it searchable by others. A
# checkout under a private folder (a clone in /root) is bind-mounted at a reachable place instead,
# read-only for the user as before; nothing in the checkout changes owner or mode.
reachable() {
  local dir=$1
  while [ "$dir" != / ]; do
    runuser -u "$user" -- test -x "$dir" || return 1
    dir=$(dirname "$dir")
  done
}
mounted=
if ! reachable "$checkout"; then
  mounted=$(mktemp -d /var/tmp/amplifier-checkout.XXXXXX)
  chmod 755 "$mounted"
  if ! mount --bind "$checkout" "$mounted" || ! reachable "$mounted"; then
    echo "sandbox-as-user: $user cannot reach $checkout (a folder above it is not searchable by others) and binding it elsewhere failed; make the folders searchable (chmod o+x) or move the checkout" >&2
    umount "$mounted" 2>/dev/null || true
    rmdir "$mounted"
    exit 2
  fi
  echo "sandbox-as-user: $checkout is not reachable by $user; running from a bind mount at $mounted"
  checkout=$mounted
fi

scratch=$(mktemp -d /var/tmp/amplifier-as-user.XXXXXX)
trap 'rm -rf "$scratch"; if [ -n "$mounted" ]; then umount "$mounted" && rmdir "$mounted"; fi' EXIT
mkdir "$scratch/home" "$scratch/tmp"
chown -R "$user:" "$scratch"
chmod 700 "$scratch"

if ! runuser -u "$user" -- bwrap --ro-bind / / --proc /proc --unshare-user --cap-drop ALL --unshare-pid --unshare-net true; then
  echo "sandbox-as-user: bwrap cannot make a user namespace as $user here." >&2
  echo "  Ubuntu 23.10+: sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; Debian-style kernels: sysctl -w kernel.unprivileged_userns_clone=1" >&2
  exit 1
fi

failed=0
# run <package dir> <report name> <test files...>: vitest as the user; then read its report.
run() {
  local pkg=$1 name=$2
  shift 2
  echo "== $pkg as $user (uid $(id -u "$user")): $*"
  # --configLoader runner: vite's default loader writes a bundled config next to node_modules (root-owned).
  if ! (cd "$checkout/$pkg" && runuser -u "$user" -- env -i \
    PATH="$PATH" HOME="$scratch/home" TMPDIR="$scratch/tmp" CI=true AMPLIFIER_REQUIRE_SANDBOX=1 \
    "$checkout/node_modules/.bin/vitest" run --configLoader runner \
    --reporter=default --reporter=json --outputFile.json="$scratch/$name.json" "$@"); then
    failed=1
  fi
  if ! node -e '
    const file = process.argv[1];
    let report;
    try { report = JSON.parse(require("fs").readFileSync(file, "utf8")); }
    catch (error) { console.error(`no test report at ${file}: ${error.message}`); process.exit(1); }
    const skipped = report.numPendingTests + report.numTodoTests;
    console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped of ${report.numTotalTests}`);
    if (report.numTotalTests === 0 || report.numFailedTests > 0 || skipped > 0) process.exit(1);
  ' "$scratch/$name.json"; then
    failed=1
  fi
}

run packages/process process src/confinement.test.ts src/sandbox.test.ts src/spare.test.ts src/seccomp.test.ts
run modules/tool-bash tool-bash src/sandbox.test.ts
# tool-filesystem's permission tests (FS-24: a file the user cannot read gives EACCES) are skipped
# as root, who reads everything: they run here.
run modules/tool-filesystem tool-filesystem src/security.test.ts

if [ "$failed" != 0 ]; then
  echo "sandbox-as-user: the sandbox tests failed or were skipped as $user" >&2
  exit 1
fi
echo "sandbox-as-user: every sandbox and permission test passed as $user"
