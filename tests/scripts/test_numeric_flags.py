#!/usr/bin/env python3
"""Every numeric flag of every fabcheck subcommand (found from --help: INT, UINT, FLOAT, NUMBER)
refuses what is not a number in its range with exit 2, naming the flag and the value, before
anything runs: "-1" into an unsigned flag (it wrapped to 18446744073709551615: a flapping link
passed), NaN, infinities, 1e400, 2^64, hexadecimal, trailing text (four kinds on every flag, the rest taking turns); then 150 random such
values.
Usage: test_numeric_flags.py --fabcheck PATH"""
import argparse
import random
import re
import subprocess
import sys

NUMERIC = {"INT", "UINT", "FLOAT", "NUMBER"}


def run(fabcheck, args):
    return subprocess.run([fabcheck, *args], capture_output=True, text=True, timeout=60)


def subcommands(fabcheck):
    text = run(fabcheck, ["--help"]).stdout
    section = text.split("Subcommands:", 1)[1]
    return [m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)\s", section, re.M)]


def numeric_flags(fabcheck, sub):
    text = run(fabcheck, [sub, "--help"]).stdout
    flags = []
    for m in re.finditer(r"^\s+(?:-\w,)?(--[a-z][a-z0-9-]*) ([A-Z]+)", text, re.M):
        if m.group(2) in NUMERIC:
            flags.append(m.group(1))
    return flags


def check_refused(fabcheck, sub, flag, value, failures):
    # A positional for the subcommands that need one; the refusal comes first.
    extra = {"run": ["--dry-run"], "gate": ["--dry-run"], "acceptance": ["--dry-run"],
             "sweep": ["--dry-run"], "inventory": []}.get(sub, ["x"])
    result = run(fabcheck, [sub, flag, value, *extra])
    said = f'{flag}: "{value}" is not'
    if result.returncode != 2 or said not in result.stderr:
        failures.append(f"{sub} {flag} {value!r}: exit {result.returncode}, stderr {result.stderr.strip()[:200]!r}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fabcheck", required=True)
    args = parser.parse_args()
    found, failures = [], []
    for sub in subcommands(args.fabcheck):
        for flag in numeric_flags(args.fabcheck, sub):
            found.append((sub, flag))
    # The flags the issue named must be among those found (the help parsing works).
    for needed in [("kernel-log", "--flap-limit"), ("run", "--iters"), ("run", "--warmup"),
                   ("run", "--budget"), ("compare", "--last"), ("evaluate", "--threads")]:
        if needed not in found:
            failures.append(f"{needed[0]} {needed[1]}: not found as a numeric flag in --help")
    # Every flag gets the four kinds that broke (a negative into an unsigned, NaN, overflow,
    # trailing text); the other fixed values go round the flags, each tried on several of them
    # (the flags share one parser, add_number_option, whose unit tests take every value).
    every_flag = ["-1", "nan", "1e400", "5x"]
    rotated = ["-0.5", "NaN", "inf", "-inf", "18446744073709551616", "99999999999999999999",
               "0x10", "", " 3"]
    checked = 0
    for index, (sub, flag) in enumerate(found):
        for value in every_flag + [rotated[(index + k) % len(rotated)] for k in range(2)]:
            check_refused(args.fabcheck, sub, flag, value, failures)
            checked += 1
    rng = random.Random(12)
    for _ in range(150):
        sub, flag = rng.choice(found)
        kind = rng.randrange(4)
        if kind == 0:
            value = str(-rng.randint(1, 10 ** rng.randint(1, 25)))
        elif kind == 1:
            value = str(rng.randint(10 ** 19, 10 ** 30))
        elif kind == 2:
            value = rng.choice(["", "-", "+"]) + rng.choice(["nan", "inf", "infinity", "1e999"])
        else:
            value = str(rng.randint(0, 9)) + rng.choice(["x", "e", ".5.5", "/2", "%", "k"])
        check_refused(args.fabcheck, sub, flag, value, failures)
    print(f"{len(found)} numeric flags: " + ", ".join(f"{s} {f}" for s, f in found))
    if failures:
        print("FAIL:\n  " + "\n  ".join(failures[:40]) + (f"\n  ... {len(failures)} in all" if len(failures) > 40 else ""))
        return 1
    print(f"PASS: {checked + 150} refusals, each exit 2 naming the flag and value")
    return 0


if __name__ == "__main__":
    sys.exit(main())
