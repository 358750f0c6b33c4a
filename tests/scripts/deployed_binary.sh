#!/usr/bin/env bash
# The binary as an operator deploys it (issue 21): copied alone it finds no profile and says where
# it looked (exit 2, never a pass); with share/fabcheck/profiles beside it, it runs; a profile folder
# given that is missing is a configuration error naming it; a gate without a launcher is refused
# with the mpirun line; host.cpu alone ends with a verdict; --version and `version` print the
# version, --help the defaults of --iters and --timeout. Usage: deployed_binary.sh FABCHECK SRC
set -u
fabcheck="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
check() {  # check NAME EXPECTED_RC RC OUTPUT_FILE PATTERN
  if [ "$3" != "$2" ] || ! grep -q -- "$5" "$4"; then
    echo "FAIL $1: exit $3 (expected $2), output:"; cat "$4"; failures=$((failures + 1))
  else
    echo "ok   $1"
  fi
}
mkdir -p "$tmp/prefix/bin"
cp "$fabcheck" "$tmp/prefix/bin/fabcheck"
bin="$tmp/prefix/bin/fabcheck"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset FABCHECK_PROFILE_PATH

"$bin" run --probes node.preflight --dry-run --single-process >"$tmp/out" 2>&1
check "copied alone: no profile, names where it looked" 2 $? "$tmp/out" \
  "unknown profile \"generic-cpu\".*share/fabcheck/profiles, which is missing"

mkdir -p "$tmp/prefix/share/fabcheck"
cp -r "$src/results/profiles" "$tmp/prefix/share/fabcheck/profiles"
"$bin" run --probes node.preflight --dry-run --single-process >"$tmp/out" 2>&1
check "with share/fabcheck/profiles beside it" 0 $? "$tmp/out" "node.preflight"

FABCHECK_PROFILE_PATH="$tmp/nowhere" "$bin" run --probes node.preflight --dry-run \
  --single-process >"$tmp/out" 2>&1
check "FABCHECK_PROFILE_PATH entry missing" 2 $? "$tmp/out" \
  "FABCHECK_PROFILE_PATH entry $tmp/nowhere: is missing"

"$bin" run --probes node.preflight --dry-run --single-process --profile-dir "$tmp/nowhere" \
  >"$tmp/out" 2>&1
check "--profile-dir missing" 2 $? "$tmp/out" "--profile-dir $tmp/nowhere: is missing"

mkdir -p "$tmp/site"
printf '[profile]\nname = "site-cpu"\n[node]\ngpus = 0\n' >"$tmp/site/site-cpu.toml"
"$bin" run --probes node.preflight --single-process --profile-dir "$tmp/site" \
  --profile site-cpu --out "$tmp/site-run" >"$tmp/out" 2>&1
check "--profile-dir adds a site profile" 0 $? "$tmp/out" "profile site-cpu"

chmod 000 "$tmp/site/site-cpu.toml"
if [ "$(id -u)" -ne 0 ]; then
  "$bin" run --probes node.preflight --dry-run --single-process --profile-dir "$tmp/site" \
    --profile site-cpu >"$tmp/out" 2>&1
  check "an unreadable profile" 2 $? "$tmp/out" "site-cpu.toml"
fi
chmod 644 "$tmp/site/site-cpu.toml"

"$bin" --version >"$tmp/out" 2>&1
check "--version: the version first, then what it was built with" 0 $? "$tmp/out" \
  '^fabcheck [0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*$'
grep -q '^mpi ' "$tmp/out" || { echo "FAIL --version names no MPI line"; failures=$((failures + 1)); }
"$bin" version >"$tmp/out" 2>&1
check "version: as --version" 0 $? "$tmp/out" '^cuda '

"$bin" gate --help >"$tmp/out" 2>&1
check "gate --help: the plan's defaults" 0 $? "$tmp/out" "(default 10, plan gate's)"
"$bin" run --help >"$tmp/out" 2>&1
check "run --help: --timeout's default and what it bounds" 0 $? "$tmp/out" \
  "(default 300; with --plan: gate 30, .* S + 15 s after the first rank began it"

"$bin" gate >"$tmp/out" 2>&1
check "gate without a launcher: exit 2 with the line" 2 $? "$tmp/out" "mpirun -np 2 .*fabcheck gate"

"$bin" run --probes host.cpu --single-process --opt host.cpu.window_s=0.2 --out "$tmp/cpu" \
  >"$tmp/out" 2>&1
rc=$?
if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then rc_class=judged; else rc_class="exit $rc"; fi
echo "$rc_class" >>"$tmp/out"
check "host.cpu alone has a verdict" judged "$rc_class" "$tmp/out" "verdict: \(PASS\|WARN\|FAIL\)"

exit $((failures > 0))
