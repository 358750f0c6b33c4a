// Evaluator: measurements x profile -> findings (PASS / WARN / FAIL / WAIVED / ERROR).
#pragma once

#include <vector>

#include "results/finding.hpp"
#include "results/measurement.hpp"
#include "results/profile.hpp"

namespace fabcheck {

// Judges one measurement. Rules, in order:
//  - status waived -> one WAIVED finding; status error -> one ERROR finding (message carried over);
//  - metric "wrong_elements" above 0 -> FAIL (data corruption; no profile needed to know that);
//  - every expectation whose probe, metric and size range match -> PASS / WARN / FAIL by its
//    thresholds (boundaries: observed == pass passes, observed == warn warns).
// A measurement no expectation covers yields no finding.
std::vector<Finding> evaluate_measurement(const Measurement& measurement, const Profile& profile);

std::vector<Finding> evaluate(const std::vector<Measurement>& measurements, const Profile& profile);

// A finding about one measurement: probe, metric, subject, host, rank, size, observed value and
// unit copied from it; message, evidence and remedy left for the caller (evaluator or judge).
Finding finding_about(const Measurement& measurement, Severity severity);

}  // namespace fabcheck
