# scheduler_reason TEXT: TEXT as a Slurm node reason, printed: printable ASCII only (a quote or
# backslash becomes `, a control character or any other byte a space), never two spaces in a row,
# no space at either end, at most 200 bytes (cut to 197 and "..."). The prolog, epilog and sweep
# pass every reason through it, whatever fabcheck or a path put into it. Source, then call.
scheduler_reason() {
  local text
  text="$(LC_ALL=C tr '"\\'"'" '```' <<<"$1" | LC_ALL=C tr -c '\041-\176' ' ' | LC_ALL=C tr -s ' ')"
  text="${text# }"
  text="${text% }"
  if ((${#text} > 200)); then text="${text:0:197}..."; fi
  printf '%s\n' "$text"
}
