#!/usr/bin/env bash
# Builds the oauthflow command from this checkout and installs it, in one command:
#
#     bash scripts/install-cli.sh                  # into ~/.local/bin
#     bash scripts/install-cli.sh --prefix DIR     # into DIR/bin
#
# It builds the release products `oauthflow` and `oauthflow-launcher` with the package trait CLI (on Linux with
# --static-swift-stdlib: the Swift runtime and Foundation inside the binaries; macOS links the system's), then
# installs into PREFIX/bin:
#
#   oauthflow                      the launcher: answers `token print` and git's `credential git` calls itself,
#                                  and runs oauthflow-full beside it for everything else (Docs/cli.md)
#   oauthflow-full                 the whole command
#   OAuthFlow_OAuthFlow.resources  the bundled provider descriptors, which must sit beside the programs
#                                  (OAuthFlow_OAuthFlow.bundle on macOS)
#
# Exit status: 0 installed, 64 a malformed command line, 1 anything else (with one `install-cli:` line saying what).
set -euo pipefail

usage() {
    echo "usage: bash scripts/install-cli.sh [--prefix DIR]   (installs into DIR/bin; DIR defaults to ~/.local)"
}

fail() {
    echo "install-cli: $1" >&2
    exit "${2:-1}"
}

prefix=""
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix)
            [ $# -ge 2 ] && [ -n "$2" ] || { usage >&2; fail "--prefix needs a directory" 64; }
            prefix="$2"
            shift 2
            ;;
        --prefix=*)
            prefix="${1#--prefix=}"
            [ -n "$prefix" ] || { usage >&2; fail "--prefix needs a directory" 64; }
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            usage >&2
            fail "unknown argument: $1" 64
            ;;
    esac
done

if [ -z "$prefix" ]; then
    [ -n "${HOME:-}" ] || fail "HOME is not set: name the directory with --prefix DIR"
    prefix="$HOME/.local"
fi
case "$prefix" in
    /*) ;;
    *) prefix="$PWD/$prefix" ;;
esac
bin="$prefix/bin"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ -f "$root/Package.swift" ] && [ -d "$root/Sources/OAuthFlowLauncher" ] ||
    fail "$root is not an OAuthFlow checkout: run the script that is in one"

swift="$(command -v swift || true)"
if [ -z "$swift" ] && [ -x /opt/swift/usr/bin/swift ]; then swift=/opt/swift/usr/bin/swift; fi
[ -n "$swift" ] || fail "no swift on PATH (nor /opt/swift/usr/bin/swift): install Swift 6.2 or later (swift.org/install)"

case "$(uname -s)" in
    Darwin)
        options=(-c release --traits CLI)
        resources="OAuthFlow_OAuthFlow.bundle"
        ;;
    *)
        options=(-c release --traits CLI --static-swift-stdlib)
        resources="OAuthFlow_OAuthFlow.resources"
        ;;
esac

cd "$root"
echo "install-cli: building oauthflow (swift build ${options[*]})" >&2
for product in oauthflow-launcher oauthflow; do
    "$swift" build "${options[@]}" --product "$product" ||
        fail "the build of $product failed (above); nothing was installed"
done
built="$("$swift" build "${options[@]}" --show-bin-path)"
for file in oauthflow-launcher oauthflow; do
    [ -x "$built/$file" ] || fail "the build made no $built/$file; nothing was installed"
done
[ -d "$built/$resources" ] || fail "the build made no $built/$resources; nothing was installed"

mkdir -p "$bin" 2>/dev/null || fail "cannot create $bin: choose another directory with --prefix DIR"
[ -w "$bin" ] || fail "$bin is not writable: choose another directory with --prefix DIR"

# Each file is copied beside its destination and renamed over it, so a running oauthflow never sees half a file.
install -m 755 "$built/oauthflow" "$bin/.oauthflow-full.new"
mv -f "$bin/.oauthflow-full.new" "$bin/oauthflow-full"
install -m 755 "$built/oauthflow-launcher" "$bin/.oauthflow.new"
mv -f "$bin/.oauthflow.new" "$bin/oauthflow"
rm -rf "$bin/.$resources.new"
cp -R "$built/$resources" "$bin/.$resources.new"
rm -rf "$bin/$resources"
mv "$bin/.$resources.new" "$bin/$resources"

echo "install-cli: installed $bin/oauthflow (the launcher), $bin/oauthflow-full and $bin/$resources" >&2
case ":${PATH:-}:" in
    *":$bin:"*) ;;
    *) echo "install-cli: $bin is not on PATH: add it (export PATH=\"$bin:\$PATH\") to run oauthflow by name" >&2 ;;
esac
