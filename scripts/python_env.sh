#!/usr/bin/env bash
# Makes the repository's Python environment .venv (the interpreter the tests
# drive): the reference checks' packages and every component's pinned
# requirements (scripts/*/requirements.txt), and the Python package's build
# backend and test packages (crates/python/requirements-test.txt; the package
# itself is built and installed by its test, tests/python_package.rs). Safe
# to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python3 ]; then
    python3 -m venv .venv
fi
pip() { .venv/bin/python3 -m pip --quiet --disable-pip-version-check "$@"; }
pip install -r scripts/requirements-test.txt
for requirements in scripts/*/requirements.txt crates/python/requirements-test.txt; do
    [ -e "$requirements" ] || continue
    echo "python_env: $requirements"
    pip install -r "$requirements"
done
