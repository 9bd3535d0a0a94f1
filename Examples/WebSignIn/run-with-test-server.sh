#!/usr/bin/env bash
# Runs this example against the test server that `bash scripts/test-server.sh` started.
# Usage: bash Examples/WebSignIn/run-with-test-server.sh [PORT]   (the same PORT, default 8080)
exec bash "$(dirname "$0")/../Shared/run-with-test-server.sh" WebSignInExample "$@"
