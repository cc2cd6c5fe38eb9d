#!/usr/bin/env bash
# The README's two commands on a fresh machine: a Debian 12 (bookworm) chroot that holds only a
# C compiler (gcc, libc6-dev), Python (python3, python3-venv) and Rust (rustup's minimal profile),
# nothing else from apt: no m4, cmake, clang, git, curl, Node.js or PostgreSQL. It clones this
# checkout's HEAD into the chroot and runs `cargo run --release` and
# `cargo test --workspace --release` there (tests whose optional peers are missing print
# `skipped: ...`, as the README says). Needs root, debootstrap (installed with apt-get when
# missing) and network access to deb.debian.org, static.rust-lang.org and crates.io. Slow: a whole
# release build from nothing (about an hour on 2 cores).
#
#   sudo scripts/fresh-machine.sh [ROOT]      # ROOT defaults to target/fresh-machine
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(realpath -m "${1:-target/fresh-machine}")"
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine.sh: run as root (chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null 2>&1 || {
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
}
# A mount left by an interrupted run would let the rm below reach the host's /dev and /sys.
if grep -q " $root/" /proc/mounts; then
  echo "fresh-machine: something is still mounted under $root; unmount it first" >&2
  exit 1
fi
if [ ! -x "$root/usr/bin/gcc" ]; then
  rm -rf --one-file-system "$root"
  echo "fresh-machine: debootstrap into $root" >&2
  debootstrap --variant=minbase --include=gcc,libc6-dev,python3,python3-venv,ca-certificates \
    bookworm "$root" http://deb.debian.org/debian >/dev/null
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# What every installed Debian has and debootstrap does not write: localhost by name.
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
# The host's trust store: on a network that inspects TLS, its CA is what lets rustup and cargo in.
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
mounts=(proc sys dev dev/pts)
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "$root/${mounts[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t devpts devpts "$root/dev/pts" 2>/dev/null || true
# What the chroot must not hold, so that the check means something.
for tool in m4 cmake clang git curl node psql; do
  if chroot "$root" sh -c "command -v $tool" >/dev/null 2>&1; then
    echo "fresh-machine: $tool is in the chroot; start from an empty ROOT" >&2
    exit 1
  fi
done
if ! chroot "$root" env HOME=/root /root/.cargo/bin/rustc --version >/dev/null 2>&1; then
  echo "fresh-machine: rustup (minimal profile)" >&2
  python3 - "$root/tmp/rustup-init" <<'EOF'
import sys, urllib.request
url = "https://static.rust-lang.org/rustup/dist/x86_64-unknown-linux-gnu/rustup-init"
urllib.request.urlretrieve(url, sys.argv[1])
EOF
  chmod +x "$root/tmp/rustup-init"
  chroot "$root" env HOME=/root /tmp/rustup-init -y --profile minimal --no-modify-path >/dev/null
fi
rm -rf "$root/src"
git clone -q --no-hardlinks . "$root/src"
run() {
  echo "fresh-machine: $*" >&2
  # The build stays in /root/target across runs of this script (the source is cloned afresh).
  chroot "$root" env -i HOME=/root PATH=/root/.cargo/bin:/usr/bin:/bin TERM=dumb \
    CARGO_TERM_COLOR=never CARGO_TARGET_DIR=/root/target sh -c "cd /src && $*"
}
run "cargo run --release"
run "cargo test --workspace --release"
echo "fresh-machine: both README commands passed in $root" >&2
