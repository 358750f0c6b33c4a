#!/usr/bin/env bash
# Slurm prolog (slurm.conf: Prolog or, with FABCHECK_SCOPE=job, PrologSlurmctld=...): the fabcheck gate
# on this job's nodes; see fabcheck-slurm.sh and docs/operations.md.
exec "$(dirname "${BASH_SOURCE[0]}")/fabcheck-slurm.sh" prolog
