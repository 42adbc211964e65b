#!/usr/bin/env bash
# The steps of the countersign GitHub Action (action.yml), kept in one script so that
# `.ci/run` runs them as a runner would:
#
#   scripts/action.sh install VERSION [RELEASES]
#       Put countersign VERSION on the PATH (into $COUNTERSIGN_INSTALL_DIR, default
#       ~/.countersign/bin; appended to $GITHUB_PATH when that is set):
#       - VERSION `source`: `cargo install --locked --path` the action's own checkout
#         (what `uses: ./` in this repository tests);
#       - otherwise (VERSION X.Y.Z or vX.Y.Z, anything else refused) the release asset for
#         this machine from RELEASES (default
#         https://github.com/$COUNTERSIGN_REPOSITORY/releases/download), checked against
#         the release's SHA256SUMS; a checksum that differs, a missing SHA256SUMS or an
#         archive that does not unpack is an error, never a fallback;
#       - when the release has no archive for this machine (or it cannot be downloaded),
#         `cargo install --locked --git https://github.com/$COUNTERSIGN_REPOSITORY
#         --tag vVERSION countersign`.
#   scripts/action.sh check-and-build SITE OUT [BASE_URL]
#       `countersign check --strict` in SITE (exit 1 on any stale or unchecked number,
#       before anything is built), then `countersign build --out OUT` (with --base-url);
#       with COUNTERSIGN_FRESH=1 both compute every census afresh (--no-cache).
set -euo pipefail

repository=${COUNTERSIGN_REPOSITORY:-countersign/countersign}
here=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "countersign action: $*" >&2; }

# The release target triple of this machine, as scripts/package names its archives.
target_triple() {
  local os arch
  os=$(uname -s)
  arch=$(uname -m)
  case "$arch" in
    x86_64 | amd64) arch=x86_64 ;;
    arm64 | aarch64) arch=aarch64 ;;
    *) return 1 ;;
  esac
  case "$os" in
    Linux) echo "$arch-unknown-linux-musl" ;;
    Darwin) echo "$arch-apple-darwin" ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) [ "$arch" = x86_64 ] && echo "x86_64-pc-windows-msvc" ;;
    *) return 1 ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d ' ' -f 1; else shasum -a 256 "$1" | cut -d ' ' -f 1; fi
}

# Download release asset NAME of version VERSION into DIR; fails when it is absent.
fetch_asset() {
  local releases=$1 version=$2 name=$3 dir=$4
  curl --fail --silent --show-error --location --retry 3 --output "$dir/$name" "$releases/v$version/$name"
}

install_release() {
  local version=$1 releases=$2 dest=$3 triple archive tmp want got
  # COUNTERSIGN_TARGET names another asset (CI installs the host's own gnu build).
  triple=${COUNTERSIGN_TARGET:-$(target_triple)} || { say "no release binary for $(uname -s) $(uname -m)"; return 3; }
  case "$triple" in *windows*) archive=countersign-v$version-$triple.zip ;; *) archive=countersign-v$version-$triple.tar.gz ;; esac
  tmp=$(mktemp -d)
  # No archive for this machine (or none to be had): build from source instead. An
  # archive without its SHA256SUMS is never installed, nor built around.
  if ! fetch_asset "$releases" "$version" "$archive" "$tmp"; then
    rm -rf "$tmp"
    say "no release asset $archive for v$version at $releases"
    return 3
  fi
  if ! fetch_asset "$releases" "$version" SHA256SUMS "$tmp"; then
    rm -rf "$tmp"
    say "error: the release v$version has $archive but no SHA256SUMS to check it against; not installing it"
    return 1
  fi
  want=$(awk -v n="$archive" '$2 == n || $2 == "*" n { print $1 }' "$tmp/SHA256SUMS")
  got=$(sha256_of "$tmp/$archive")
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    rm -rf "$tmp"
    say "error: the SHA-256 of $archive is $got, but the release's SHA256SUMS says ${want:-nothing}; not installing it"
    return 1
  fi
  local top=${archive%.tar.gz}
  top=${top%.zip}
  if ! case "$archive" in *.zip) (cd "$tmp" && unzip -q "$archive") ;; *) tar -xzf "$tmp/$archive" -C "$tmp" ;; esac; then
    rm -rf "$tmp"
    say "error: $archive (checksum right) does not unpack; not installing it"
    return 1
  fi
  local exe=countersign
  case "$triple" in *windows*) exe=countersign.exe ;; esac
  if [ ! -f "$tmp/$top/$exe" ]; then
    rm -rf "$tmp"
    say "error: $archive holds no $top/$exe; not installing it"
    return 1
  fi
  mkdir -p "$dest" && cp "$tmp/$top/$exe" "$dest/$exe" || { rm -rf "$tmp"; say "error: cannot write $dest/$exe"; return 1; }
  rm -rf "$tmp"
  say "installed countersign v$version ($triple) from the release into $dest"
}

# `cargo install` into a folder of its own, then the binary into DEST (cargo puts it in
# ROOT/bin, whatever DEST is called).
cargo_install() {
  local dest=$1 root
  shift
  command -v cargo >/dev/null 2>&1 || {
    say "error: building countersign needs cargo, which is not on the PATH: add a Rust toolchain to the job (dtolnay/rust-toolchain) or use a version that has release binaries"
    return 1
  }
  root=$(mktemp -d)
  cargo install --locked --quiet --root "$root" "$@" || { rm -rf "$root"; return 1; }
  mkdir -p "$dest" && cp "$root"/bin/countersign* "$dest/" || { rm -rf "$root"; say "error: cannot write $dest"; return 1; }
  rm -rf "$root"
}

cmd_install() {
  local version=${1:?usage: scripts/action.sh install VERSION [RELEASES]}
  local releases=${2:-https://github.com/$repository/releases/download}
  local dest=${COUNTERSIGN_INSTALL_DIR:-$HOME/.countersign/bin}
  dest=${dest%/}
  version=${version#v}
  if [ "$version" = source ]; then
    # Into the checkout's own target/, so a second install in the same job is quick.
    CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target} cargo_install "$dest" --path "$here" --bin countersign
  else
    if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
      say "error: \`$1\` is not a version: write one like 0.1.0 (or v0.1.0), or \`source\`"
      return 2
    fi
    local status=0
    install_release "$version" "$releases" "$dest" || status=$?
    if [ "$status" -eq 3 ]; then
      say "building v$version from source with cargo install instead"
      cargo_install "$dest" --git "https://github.com/$repository" --tag "v$version" countersign
    elif [ "$status" -ne 0 ]; then
      return "$status"
    fi
  fi
  if [ -n "${GITHUB_PATH:-}" ]; then echo "$dest" >> "$GITHUB_PATH"; fi
  "$dest/countersign" --version
}

cmd_check_and_build() {
  local site=${1:?usage: scripts/action.sh check-and-build SITE OUT [BASE_URL]} out=${2:?missing OUT} base_url=${3:-}
  local bin=countersign
  if [ -n "${COUNTERSIGN_INSTALL_DIR:-}" ] && [ -x "$COUNTERSIGN_INSTALL_DIR/countersign" ]; then bin=$COUNTERSIGN_INSTALL_DIR/countersign; fi
  local flags=()
  if [ -n "${COUNTERSIGN_FRESH:-}" ]; then flags+=(--no-cache); fi
  "$bin" check --strict --root="$site" ${flags[@]+"${flags[@]}"}
  if [ -n "$base_url" ]; then flags+=(--base-url="$base_url"); fi
  "$bin" build --root="$site" --out="$out" ${flags[@]+"${flags[@]}"}
}

case "${1:-}" in
  install) shift; cmd_install "$@" ;;
  check-and-build) shift; cmd_check_and_build "$@" ;;
  *) echo "usage: scripts/action.sh install VERSION [RELEASES] | check-and-build SITE OUT [BASE_URL]" >&2; exit 2 ;;
esac
