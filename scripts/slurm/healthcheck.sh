#!/usr/bin/env bash
# Slurm HealthCheckProgram (slurm.conf: HealthCheckProgram=..., HealthCheckInterval=...): answers from
# this node's last gate when it passed recently, else runs the gate now; see fabcheck-slurm.sh and
# docs/operations.md.
exec "$(dirname "${BASH_SOURCE[0]}")/fabcheck-slurm.sh" health
