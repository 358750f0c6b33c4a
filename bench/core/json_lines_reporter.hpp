// `--json`: the run as JSON lines on stdout, one object per event (run_started, probe_started,
// note, step, progress, measurement, finding, probe_finished, evidence, run_finished) for tools
// that follow a run
// as it goes. The fields are documented in results/schema/README.md (event.schema.json). With
// --dry-run the plan is one line of its own ("kind": "plan"); a rank's problems go to `err` as
// the console says them.
#pragma once

#include <cstdio>
#include <memory>

#include "bench/core/reporter.hpp"

namespace fabcheck {

std::unique_ptr<Reporter> make_json_lines_reporter(std::FILE* out, std::FILE* err = stderr);

}  // namespace fabcheck
