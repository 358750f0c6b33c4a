// JUnit XML: a run's probes and findings as test suites and test cases (junit.xml), for the CI
// pipelines and dashboards that read JUnit (Jenkins, GitLab, GitHub Actions test reporters).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/finding.hpp"

namespace fabcheck {

// The JUnit document of a run: <testsuites> (named "fabcheck <plan>") holding
//   - "fabcheck.run": the run's properties (plan, profile, verdict, exit code, hosts, run
//     directory) and one case "run completed", an <error> when the run is incomplete;
//   - one <testsuite> per probe, in the order the summary lists them: a case per finding (FAIL ->
//     <failure>, ERROR -> <error>, WARN passes with the warning in <system-out>, PASS passes), a
//     probe that errored without an ERROR finding -> an <error> case, a probe that ran but was
//     judged by nothing -> a <skipped> case ("measured, not judged"), a waived probe -> one
//     <skipped> case with the reason.
// A case is named by what it judged, stably across runs ("node07: GPU 3 (0000:9a:00.0) link_width
// @ 1MiB"), its classname "fabcheck.<probe>". Times come from the summary's timing.probes when
// present. Text is valid UTF-8 (invalid bytes become U+FFFD) and XML 1.0 (control characters other
// than tab and newline become U+FFFD); the shape: tests/fixtures/junit/junit.xsd.
std::string render_junit(const std::vector<Finding>& findings, const nlohmann::json& summary);

// `raw` as XML 1.0 character data (or, with `attribute`, an attribute value): valid UTF-8, every
// character outside XML 1.0's Char production (C0 controls but tab, newline and carriage return,
// surrogates, U+FFFE, U+FFFF) replaced by U+FFFD, markup escaped.
std::string xml_escape(const std::string& raw, bool attribute);

}  // namespace fabcheck
