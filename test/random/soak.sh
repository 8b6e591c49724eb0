#!/bin/bash
# A longer soak of the randomized consistency test: every scenario again
# and again with fresh seeds (printed with every summary line, so that a
# failure replays with --seed) for SOAK_MINUTES (default 30), with more
# statements per scenario than the default run.  Not part of the default
# tests.
#
#   bash test/random/soak.sh                         # 30 minutes
#   SOAK_MINUTES=120 bash test/random/soak.sh --scenario counted,multi
#
# Uses the server named by PGHOST/PGPORT/PGUSER, or starts its own
# throwaway cluster like run.sh.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec bash "$HERE/run.sh" --soak "${SOAK_MINUTES:-30}" --statements "${SOAK_STATEMENTS:-1000}" "$@"
