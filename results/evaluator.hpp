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
//  - every expectation whose probe, metric, size range and subject pattern match -> PASS / WARN /
//    FAIL by its thresholds (boundaries: observed == pass passes, observed == warn warns), with
//    the tier the figure matches in its message when a [[path]] lists the figure;
//  - a figure on a [[path]] that no expectation covers -> its tier finding (results/tiers.hpp):
//    FAIL below the path's expected tier, else PASS naming the tier it matches.
// A measurement nothing covers yields no finding.
std::vector<Finding> evaluate_measurement(const Measurement& measurement, const Profile& profile);

// What a PASS finding carries: everything (a run's own findings), or only its severity, for a
// caller that only counts PASS findings (fleet evaluation judging millions of figures). Findings
// of every other severity are whole either way.
enum class PassDetail { full, counted };

// evaluate_measurement over many figures, looking each figure's expectations and [[path]] up by
// probe and metric instead of scanning the profile for each.
std::vector<Finding> evaluate(const std::vector<Measurement>& measurements, const Profile& profile,
                              PassDetail pass_detail = PassDetail::full);

// A finding about one measurement: probe, metric, subject, host, rank, size, observed value and
// unit copied from it; message, evidence and remedy left for the caller (evaluator or judge).
Finding finding_about(const Measurement& measurement, Severity severity);

// One PASS per probe whose results were all verified with no wrong element (wrong_elements
// records, every one 0): checking data is a judgement, whatever the profile says of speed. A probe
// with any wrong element has its FAIL findings instead and gets no PASS here.
std::vector<Finding> verification_passes(const std::vector<Measurement>& measurements);

}  // namespace fabcheck
