#!/usr/bin/env bash
# Side-by-side benchmarks of the release `oauthflow` (see Docs/benchmarks.md):
# start-up against a trivial Swift program, and lint against check-jsonschema.
#
# Builds oauthflow in release mode with the Swift runtime and Foundation linked statically
# (--static-swift-stdlib, as the CLI is meant to ship: no shared libraries to find and
# relocate at every start; in .build-static so the usual build is untouched), a trivial
# Swift program as the floor (linked statically the same way: a dynamic floor would pay loader work
# the CLI does not, and flatter it), installs
# libyaml's C event parse of the same files as the lint floor (Benchmarks/LibYAMLFloor), installs
# check-jsonschema into a virtualenv under Benchmarks/.build, generates corpora of 3,
# 1,000, 10,000 and 30,000 descriptors there (and, with Benchmarks/corpus/generate.py, 1,000 of varied
# shapes, and the same 1,000 with about 800 warnings added), and prints the figures and the ratios. PAIRS
# sets the number of pairs of each lint-against-libyaml comparison (default 9); ONLY=lint runs that
# comparison alone, on the three corpora; ONLY=instructions counts lint's instructions against the C parse's on
# the same corpora with callgrind, and the cache misses of both with cachegrind (the same figures from one run to
# the next, where CPU time on a shared machine is not).
export BENCHMARK_COMMAND="bash Benchmarks/compare.sh $*"
source "$(dirname "$0")/static-release.sh" compare
oauthflow="$root/.build-static/release/oauthflow"
static_floor floor-static $'import Foundation\nprint("")'
floor="$work/floor-static"

# The lint floor: libyaml (the copy Yams bundles) parsing the same files into events, in C (-O2).
yaml_floor="$work/yaml-events"
if [ ! -x "$yaml_floor" ]; then
    cyaml="$root/.build-static/checkouts/Yams/Sources/CYaml"
    cc -O2 -DYAML_DECLARE_STATIC -DYAML_VERSION_MAJOR=0 -DYAML_VERSION_MINOR=2 -DYAML_VERSION_PATCH=5 -DYAML_VERSION_STRING='"0.2.5"' \
        -I"$cyaml/include" -I"$cyaml/src" "$cyaml/src/api.c" "$cyaml/src/parser.c" "$cyaml/src/reader.c" "$cyaml/src/scanner.c" \
        "$root/Benchmarks/LibYAMLFloor/events.c" -o "$yaml_floor"
fi

# ONLY=instructions counts instructions with callgrind, which cannot read the release build's debug information:
# it runs a copy without it.
if [ "${ONLY:-}" = instructions ]; then
    command -v valgrind >/dev/null || { echo "ONLY=instructions needs valgrind (apt-get install valgrind)" >&2; exit 1; }
    strip --strip-debug -o "$work/oauthflow-nodebug" "$oauthflow"
fi

venv="$work/venv"
if [ -z "${ONLY:-}" ] && [ ! -x "$venv/bin/check-jsonschema" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check check-jsonschema
fi

python3 "$root/Benchmarks/compare.py" "$oauthflow" "$venv/bin/check-jsonschema" "$floor" "$work" "$yaml_floor"
