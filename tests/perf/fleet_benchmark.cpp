// Benchmarks of fleet evaluation on synthetic sweeps (tests/synthetic): `fabcheck evaluate` over
// N nodes x 8 GPUs end to end (reading, re-judging every run, peers across the fleet), each
// iteration in a child process so that its peak memory is its own (wait4's ru_maxrss); and the
// parts alone (parsing the JSON lines, reading a run directory, the peer judge). tests/perf/run.sh
// runs them.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench/cli/evaluate_command.hpp"
#include "bench/cli/peer_settings.hpp"
#include "bench/cli/probe_families.hpp"
#include "results/json_line.hpp"
#include "results/jsonl_reader.hpp"
#include "results/measurement_scan.hpp"
#include "results/record_lines.hpp"
#include "results/run_reader.hpp"
#include "tests/synthetic/every_probe_registry.hpp"
#include "tests/synthetic/synthetic_fleet.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

// The sweeps live under $FABCHECK_PERF_DIR (default /tmp/fabcheck-perf), one folder per size,
// written once and kept: writing 12,500 nodes takes longer than judging them.
fs::path fleet_dir(std::size_t nodes) {
  const char* base = std::getenv("FABCHECK_PERF_DIR");
  const fs::path root = base && *base ? fs::path(base) : fs::path("/tmp/fabcheck-perf");
  const fs::path dir = root / ("fleet-" + std::to_string(nodes));
  // The marker names the record format: a sweep written by an older generator is written again.
  const fs::path done = dir / ".complete-run-writer-format";
  if (!fs::exists(done)) {
    fs::remove_all(dir);
    synthetic::FleetSpec spec;
    spec.nodes = nodes;
    const auto fleet = synthetic::write_fleet(dir / "sweep", spec);
    std::ofstream(done) << fleet.measurements << " measurements, " << fleet.bytes << " bytes\n";
  }
  return dir / "sweep";
}

const Registry& registry() { return synthetic::every_probe_registry(); }

struct ChildFigures {
  double seconds = 0;
  double seconds_runs = 0;   // reading and judging the runs (in parallel)
  double seconds_peers = 0;  // the peers across the fleet (one thread)
  double measurements = 0;
  double findings = 0;
  double drain = 0;
  double nodes = 0;
  long peak_rss_kib = 0;
};

// Runs `evaluate_runs` in a child; its wall time comes back through a pipe, its peak RSS from
// wait4.
ChildFigures evaluate_in_child(const fs::path& dir, unsigned threads) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) std::abort();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    ChildFigures figures;
    const auto started = std::chrono::steady_clock::now();
    const FleetEvaluation e = evaluate_runs({dir.string()}, "", registry(), threads);
    figures.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    figures.seconds_runs = e.seconds_runs;
    figures.seconds_peers = e.seconds_peers;
    figures.measurements = static_cast<double>(e.store.rows.size());
    figures.findings = static_cast<double>(e.findings.size());
    figures.drain = static_cast<double>(e.drain.size());
    figures.nodes = static_cast<double>(e.nodes.size());
    const ssize_t written = ::write(pipe_fds[1], &figures, sizeof figures);
    ::_exit(written == sizeof figures ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  ChildFigures figures;
  const ssize_t got = ::read(pipe_fds[0], &figures, sizeof figures);
  ::close(pipe_fds[0]);
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  if (got != sizeof figures || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "perf_fleet: the evaluating child failed\n");
    std::abort();
  }
  figures.peak_rss_kib = usage.ru_maxrss;
  return figures;
}

// Reads every file of the sweep once, untimed, so that an evaluation reads it from the page cache
// as it would right after the sweep wrote it: the figure is fabcheck's, not the disk's.
void warm_page_cache(const fs::path& dir) {
  std::vector<char> buffer(1 << 20);
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::FILE* file = std::fopen(entry.path().c_str(), "rb");
    if (file == nullptr) continue;
    while (std::fread(buffer.data(), 1, buffer.size(), file) == buffer.size()) {
    }
    std::fclose(file);
  }
}

void BM_EvaluateFleet(benchmark::State& state) {
  const auto nodes = static_cast<std::size_t>(state.range(0));
  const fs::path dir = fleet_dir(nodes);
  warm_page_cache(dir);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  ChildFigures last;
  for (auto _ : state) {
    last = evaluate_in_child(dir, threads);
    state.SetIterationTime(last.seconds);
  }
  state.counters["nodes"] = last.nodes;
  state.counters["gpus"] = last.nodes * 8;
  state.counters["measurements"] = last.measurements;
  state.counters["findings"] = last.findings;
  state.counters["drain"] = last.drain;
  state.counters["seconds_runs"] = last.seconds_runs;
  state.counters["seconds_peers"] = last.seconds_peers;
  state.counters["peak_rss_MiB"] = static_cast<double>(last.peak_rss_kib) / 1024.0;
  state.counters["records_per_s"] = last.measurements / last.seconds;
}
BENCHMARK(BM_EvaluateFleet)
    ->Arg(4096)
    ->Arg(12500)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// Reading alone: one node's run directory into a store.
void BM_ReadRunDir(benchmark::State& state) {
  const fs::path dir = fleet_dir(64) / synthetic::node_name(0);
  std::size_t rows = 0;
  for (auto _ : state) {
    FleetStore store;
    read_run_dir(dir, store);
    rows = store.rows.size();
    benchmark::DoNotOptimize(store.rows.data());
  }
  state.counters["records_per_s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReadRunDir)->Unit(benchmark::kMicrosecond);

// Parsing alone: one node's measurement lines, in memory, read the strict way (JsonLine +
// read_measurement_fields, arg 0) or by the one-pass scan that read_run_dir tries first (arg 1).
void BM_ReadMeasurementLines(benchmark::State& state) {
  const fs::path file = fleet_dir(64) / synthetic::node_name(0) / "measurements.jsonl";
  std::vector<std::string> lines;
  for_each_jsonl_line(file,
                      [&](std::string_view line, std::size_t, bool) { lines.emplace_back(line); });
  const bool scan = state.range(0) != 0;
  const std::string name = file.string();
  JsonLine json;
  MeasurementFields fields;
  std::size_t scanned = 0;
  for (auto _ : state) {
    scanned = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (scan && scan_measurement_line(lines[i], fields)) {
        ++scanned;
      } else {
        if (!json.parse(lines[i])) std::abort();
        read_measurement_fields(json, {&name, i + 1}, fields);
      }
      benchmark::DoNotOptimize(fields.value);
    }
  }
  state.counters["scanned"] = static_cast<double>(scanned);
  state.counters["records_per_s"] = benchmark::Counter(
      static_cast<double>(lines.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReadMeasurementLines)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The peers of a 1024-node sweep, once read.
void BM_JudgePeers(benchmark::State& state) {
  FleetStore store;
  for (const fs::path& run : find_run_dirs({fleet_dir(1024).string()})) read_run_dir(run, store);
  const MetricCatalog catalog = registry().catalog();
  const PeerJudgeOptions options = peer_judge_options(registry(), catalog);
  std::size_t findings = 0;
  for (auto _ : state) findings = judge_peers(store, options).size();
  state.counters["measurements"] = static_cast<double>(store.rows.size());
  state.counters["findings"] = static_cast<double>(findings);
}
BENCHMARK(BM_JudgePeers)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace fabcheck

BENCHMARK_MAIN();
