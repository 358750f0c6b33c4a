// JSONL, evidence, HDF5, summary, Prometheus and JUnit reporters: when each file of the run
// directory is written.
#include "bench/core/run_dir_reporters.hpp"

#include <cstdio>
#include <optional>
#include <string>
#include <unordered_map>

#include "results/record_json.hpp"

namespace fabcheck {

const char* to_string(ProbeOutcome outcome) {
  switch (outcome) {
    case ProbeOutcome::waived:
      return "waived";
    case ProbeOutcome::errored:
      return "errored";
    default:
      return "ran";
  }
}

namespace {

// measurements.jsonl and findings.jsonl, one record a line as they come: the root's figures as it
// emits them (a collective's size as it ends), so an interrupt or a crash loses at most the size
// in flight; the gathered probe's records after, less those already written.
class JsonlReporter final : public Reporter {
 public:
  explicit JsonlReporter(RunWriter& writer) : writer_(writer) {}
  void probe_started(const ProbeStart&) override { written_early_.clear(); }
  void progress(const ProbeStart&, const Measurement& figure) override {
    writer_.append(figure);
    ++written_early_[to_jsonl_line(to_json(figure))];
  }
  void measurements(const ProbeInfo&, const std::vector<Measurement>& every_rank) override {
    // One record that cannot be written whole does not keep the others out.
    std::optional<ResultsWriteError> first;
    for (const Measurement& m : every_rank) {
      if (!written_early_.empty()) {
        const auto early = written_early_.find(to_jsonl_line(to_json(m)));
        if (early != written_early_.end()) {
          if (--early->second == 0) written_early_.erase(early);
          continue;
        }
      }
      try {
        writer_.append(m);
      } catch (const ResultsWriteError& error) {
        if (!first) first = error;
      }
    }
    written_early_.clear();
    if (first) throw *first;
  }
  void finding(const Finding& finding) override { writer_.append(finding); }

 private:
  RunWriter& writer_;
  // The records of the probe in flight written as they were emitted, each with its count.
  std::unordered_map<std::string, int> written_early_;
};

class EvidenceReporter final : public Reporter {
 public:
  explicit EvidenceReporter(RunWriter& writer) : writer_(writer) {}
  void evidence(const std::string& host,
                const std::vector<std::pair<std::string, std::string>>& files) override {
    writer_.write_evidence(host, files);
  }

 private:
  RunWriter& writer_;
};

class Hdf5Reporter final : public Reporter {
 public:
  explicit Hdf5Reporter(RunWriter& writer) : writer_(writer) {}
  void results_complete(const std::vector<Measurement>&, const std::vector<Finding>&) override {
    try {
      writer_.write_hdf5();
    } catch (const ResultsWriteError& error) {
      std::fprintf(stderr, "fabcheck: run.h5 not written: %s\n", error.what());
      if (error.out_of_space()) throw;  // the run cannot be written whole: it ends incomplete
    }
  }

 private:
  RunWriter& writer_;
};

class SummaryReporter final : public Reporter {
 public:
  explicit SummaryReporter(RunWriter& writer) : writer_(writer) {}
  void summary(const nlohmann::json& summary, bool) override {
    try {
      writer_.write_summary(summary);
    } catch (const ResultsWriteError& error) {
      std::fprintf(stderr, "fabcheck: summary.json not updated: %s\n", error.what());
      throw;
    }
  }

 private:
  RunWriter& writer_;
};

// Every final summary (the end, a timeout, an interrupt) replaces metrics.prom, so a collector
// never keeps a PASS from before a run that was cut short.
class PrometheusReporter final : public Reporter {
 public:
  PrometheusReporter(RunWriter& writer, std::filesystem::path collector_dir)
      : writer_(writer), collector_dir_(std::move(collector_dir)) {}
  void summary(const nlohmann::json& summary, bool final) override {
    if (!final) return;
    try {
      writer_.write_prometheus(summary, collector_dir_);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "fabcheck: metrics.prom not written: %s\n", error.what());
    }
  }

 private:
  RunWriter& writer_;
  std::filesystem::path collector_dir_;
};

class JunitReporter final : public Reporter {
 public:
  explicit JunitReporter(RunWriter& writer) : writer_(writer) {}
  void summary(const nlohmann::json& summary, bool final) override {
    if (!final) return;
    try {
      writer_.write_junit(summary);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "fabcheck: junit.xml not written: %s\n", error.what());
    }
  }

 private:
  RunWriter& writer_;
};

}  // namespace

std::vector<std::unique_ptr<Reporter>> run_directory_reporters(
    RunWriter& writer, const std::filesystem::path& prometheus_dir) {
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(std::make_unique<JsonlReporter>(writer));
  reporters.push_back(std::make_unique<EvidenceReporter>(writer));
  reporters.push_back(std::make_unique<Hdf5Reporter>(writer));
  reporters.push_back(std::make_unique<SummaryReporter>(writer));
  reporters.push_back(std::make_unique<PrometheusReporter>(writer, prometheus_dir));
  reporters.push_back(std::make_unique<JunitReporter>(writer));
  return reporters;
}

}  // namespace fabcheck
