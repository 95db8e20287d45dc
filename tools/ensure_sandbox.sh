#!/usr/bin/env bash
# Installs Debian's bubblewrap (bwrap), the sandbox the grader runs every submitted notebook in,
# if it is not there yet, and checks that this kernel lets it create user namespaces.
set -euo pipefail
if ! command -v bwrap >/dev/null 2>&1; then
  echo "installing Debian's bubblewrap for the grader's sandbox (needs apt and root)..."
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo -n"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null
fi
if ! bwrap --unshare-all --unshare-user --die-with-parent --ro-bind / / --proc /proc --dev /dev true 2>/dev/null; then
  echo "bubblewrap is installed but cannot create a sandbox here: the kernel must allow user namespaces" >&2
  echo "(sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0; in a container: allow them)." >&2
  echo "Without a sandbox, 'make grade' refuses to grade untrusted notebooks (TRUSTED=1 grades without isolation)." >&2
  exit 1
fi
