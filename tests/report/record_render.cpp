// Test tool: prints render_prometheus() or render_junit() of a run directory's records
// (measurements.jsonl, findings.jsonl, summary.json), so the report and ops tests can feed the
// writers hostile records and parse their output strictly. Usage: record_render prom|junit RUN_DIR
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "bench/sys/config_error.hpp"
#include "results/junit_writer.hpp"
#include "results/prometheus_writer.hpp"
#include "results/record_json.hpp"
#include "results/run_writer.hpp"

int main(int argc, char** argv) {
  const std::string format = argc == 3 ? argv[1] : "";
  if (format != "prom" && format != "junit") {
    std::fprintf(stderr, "usage: record_render prom|junit RUN_DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[2];
  try {
    const auto measurements = fabcheck::read_measurements(dir);
    std::vector<fabcheck::Finding> findings;
    std::ifstream lines(dir / "findings.jsonl");
    std::string line;
    for (long number = 1; std::getline(lines, line); ++number) {
      if (line.empty()) continue;
      findings.push_back(fabcheck::finding_from_json(
          nlohmann::json::parse(line),
          (dir / "findings.jsonl").string() + ":" + std::to_string(number)));
    }
    std::ifstream summary_file(dir / "summary.json");
    const nlohmann::json summary = nlohmann::json::parse(summary_file);
    if (format == "prom")
      std::cout << fabcheck::render_prometheus(measurements, findings, summary);
    else
      std::cout << fabcheck::render_junit(findings, summary);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "record_render: %s\n", error.what());
    return 2;
  }
  return 0;
}
