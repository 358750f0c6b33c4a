// libFuzzer target: arbitrary bytes as a run directory's measurements.jsonl and findings.jsonl,
// through the streaming reader, the strict record parser, the fleet store and the peer judge (what
// `fabcheck evaluate` does with a file it is given).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "bench/sys/config_error.hpp"
#include "results/jsonl_reader.hpp"
#include "results/peer_judge.hpp"
#include "results/run_reader.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path& run_dir() {
  static const fs::path dir = [] {
    std::string pattern = (fs::temp_directory_path() / "fabcheck-jsonl-fuzz-XXXXXX").string();
    return fs::path(::mkdtemp(pattern.data()));
  }();
  return dir;
}

void write(const fs::path& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return;
  std::fwrite(data, 1, size, file);
  std::fclose(file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& dir = run_dir();
  // The first half is the measurements, the second the findings.
  write(dir / "measurements.jsonl", data, size / 2);
  write(dir / "findings.jsonl", data + size / 2, size - size / 2);
  fabcheck::FleetStore store;
  try {
    fabcheck::read_run_dir(dir, store);
  } catch (const fabcheck::ConfigError&) {
    return 0;  // malformed input named with its file and line: the expected outcome
  }
  for (const auto& row : store.rows) store.materialize(row);
  static const fabcheck::MetricCatalog catalog = {
      {"gpu.h2d", {{"bw", {"GB/s", fabcheck::Better::higher}}}},
      {"fabric.rdma_bw", {{"write_bw", {"Gb/s", fabcheck::Better::higher}}}},
      {"gpu.launch", {{"launch_us", {"us", fabcheck::Better::lower}}}}};
  fabcheck::PeerJudgeOptions options;
  options.catalog = &catalog;
  fabcheck::judge_peers(store, options);
  // Short lines refused by the length cap, never read past it.
  try {
    fabcheck::for_each_jsonl_line(
        dir / "measurements.jsonl", [](std::string_view, std::size_t, bool) {}, 64);
  } catch (const fabcheck::ConfigError&) {
  }
  return 0;
}
