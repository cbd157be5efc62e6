#!/usr/bin/env bash
# sim-teardown.sh: remove the simulated GPIO loopback chip and unload
# gpio-sim and irq-sim (sim-setup.sh --remove).
set -euo pipefail
exec "$(dirname "$0")/sim-setup.sh" --remove
