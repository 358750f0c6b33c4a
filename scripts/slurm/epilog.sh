#!/usr/bin/env bash
# Slurm epilog (slurm.conf: Epilog or, with FABCHECK_SCOPE=job, EpilogSlurmctld=...): the fabcheck gate
# on this job's nodes; see fabcheck-slurm.sh and docs/operations.md.
exec "$(dirname "${BASH_SOURCE[0]}")/fabcheck-slurm.sh" epilog
