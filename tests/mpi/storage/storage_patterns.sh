#!/usr/bin/env bash
# Integration: every storage probe under mpirun -np 2 on /tmp produces its measurements, verifies
# its data, removes its run directory and leaves a pre-existing file byte-for-byte unchanged.
# Usage: tests/mpi/storage/storage_patterns.sh build/bench/cli/fabcheck
source "$(dirname "$0")/common.sh"

plant_existing_file
OUT=$WORK/out
"${MPIRUN[@]}" "$FABCHECK" run --profile "$PROFILE" --probes 'storage.*' --storage-path "$TARGET" --out "$OUT" \
  --opt storage.file_size=16M --opt storage.duration_s=0.5 --opt storage.ckpt_size=8M \
  --opt storage.md_files=200 > "$WORK/console.txt" 2>&1
rc=$?
cat "$WORK/console.txt"
if [ "$rc" -eq 0 ]; then pass "exit 0"; else fail "exit $rc (expected 0)"; fi

python3 - "$OUT/measurements.jsonl" "$TARGET" <<'PY' || FAILURES=$((FAILURES + 1))
import json, sys
path, target = sys.argv[1], sys.argv[2]
records = [json.loads(line) for line in open(path) if line.strip()]
expected = {
    "storage.seq_write": ["bw", "wrong_elements"],
    "storage.seq_read": ["bw", "wrong_elements"],
    "storage.rand_read": ["iops_qd1", "iops_qd32", "lat_p50_us_qd1", "lat_p99_us_qd32",
                          "lat_p999_us_qd32", "wrong_elements"],
    "storage.fsync_lat": ["fsync_p50_us", "fsync_p99_us", "fsync_p999_us", "commits"],
    "storage.ckpt_write": ["bw_aggregate", "bw_first_done", "bw_rank"],
    "storage.ckpt_read": ["bw_aggregate", "bw_first_done", "bw_rank", "wrong_elements"],
    "storage.metadata": ["create_rate", "stat_rate", "remove_rate"],
    "storage.contention": ["read_alone_bw", "read_contended_bw", "write_alone_bw",
                           "write_contended_bw", "read_slowdown", "write_slowdown"],
}
bad = 0
for probe, metrics in expected.items():
    for metric in metrics:
        found = [r for r in records if r.get("probe") == probe and r.get("metric") == metric]
        ok = [r for r in found if r.get("status") == "ok" and r.get("subject") == target]
        if not ok:
            print(f"FAIL: {probe} {metric}: no ok measurement on {target}")
            bad += 1
            continue
        for r in ok:
            if metric == "wrong_elements" and r["value"] != 0:
                print(f"FAIL: {probe} found corrupt data: {r.get('message')}")
                bad += 1
            elif metric != "wrong_elements" and not r["value"] > 0:
                print(f"FAIL: {probe} {metric} = {r['value']}")
                bad += 1
# every rank wrote a checkpoint: one bw_rank per rank
ranks = {r.get("rank") for r in records if r.get("probe") == "storage.ckpt_write" and r.get("metric") == "bw_rank"}
if len(ranks) < 2:
    print(f"FAIL: storage.ckpt_write bw_rank from ranks {sorted(ranks)}, expected 2")
    bad += 1
print("measurements checked:", len(records), "records,", bad, "problems")
sys.exit(1 if bad else 0)
PY
check_no_scratch_left
check_existing_file_untouched
finish
