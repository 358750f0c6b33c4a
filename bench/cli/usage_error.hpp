// A usage error said once for the whole job.
#pragma once

#include <string>

namespace fabcheck {

// A usage error (exit 2), said once for the whole job: rank 0 prints it; another rank hands it to
// its sentinel, which prints it (naming the rank) only when rank 0 did not fail the same way, i.e.
// when the launcher has not ended the job within a few seconds.
void report_usage_error(const std::string& message);

}  // namespace fabcheck
