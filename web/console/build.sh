#!/usr/bin/env bash
# Rebuilds web/dist, which package web embeds, from the sources here: the console with
# Vite (type-checked by tsc first) into dist/console, and the /docs page with Swagger
# UI's files from swagger-ui-dist into dist/docs. Commit dist/ afterwards: `go run`
# and `go build` need no Node.
#
#   web/console/build.sh               installs the locked npm packages when needed
#   web/console/build.sh --no-install  uses node_modules as it is
set -euo pipefail
# The Go release Skygate builds with (go.mod); the go command fetches it when the
# machine has another.
export GOTOOLCHAIN=go1.27.3
cd "$(dirname "$0")"
if [ "${1:-}" != "--no-install" ]; then
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
fi
npm run --silent build
