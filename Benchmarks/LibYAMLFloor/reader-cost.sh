#!/usr/bin/env bash
# What libyaml's reader costs on a corpus (Docs/benchmarks.md, "Stages, and libyaml's reader"): builds
# events-handed.c with the toolchain's clang as lint's copy of libyaml is built, then counts instructions with
# callgrind through the reader (--reader) and with the text handed over. Usage: reader-cost.sh CORPUS_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=${1:?usage: reader-cost.sh CORPUS_DIR}
cyaml=.build/checkouts/Yams/Sources/CYaml
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
/opt/swift/usr/bin/clang -O2 -fno-omit-frame-pointer -DYAML_DECLARE_STATIC -DYAML_VERSION_MAJOR=0 -DYAML_VERSION_MINOR=2 \
    -DYAML_VERSION_PATCH=5 -DYAML_VERSION_STRING='"0.2.5"' -I$cyaml/include -I$cyaml/src $cyaml/src/{api,parser,reader,scanner}.c \
    Benchmarks/LibYAMLFloor/events-handed.c -o "$out/handed"
valgrind --tool=callgrind --callgrind-out-file="$out/reader.out" "$out/handed" --reader "$corpus"/*.yaml
valgrind --tool=callgrind --callgrind-out-file="$out/handed.out" "$out/handed" "$corpus"/*.yaml
