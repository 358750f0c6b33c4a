// `fabcheck evaluate`, `baseline` and `compare` on small synthetic sweeps: what a run itself knew
// (incomplete, errored, killed mid-write) is never re-judged to PASS; what is not a regular file is
// refused at once with exit 2; --out files; a baseline round trip (healthy runs pass, a run 20%
// lower fails, also alone where no peer can); a comparison against an earlier run and against a
// history written night by night with --history; a node's checkpoint write to the shared
// filesystem at half its peers' is a WARN (and a healthy fleet's is nothing).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench/cli/evaluate_command.hpp"
#include "bench/cli/history_commands.hpp"
#include "bench/cli/probe_families.hpp"
#include "results/history.hpp"
#include "results/profile.hpp"
#include "results/record_json.hpp"
#include "tests/doubles/temp_dir.hpp"
#include "tests/synthetic/every_probe_registry.hpp"
#include "tests/synthetic/synthetic_fleet.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using fabcheck::testing::TempDir;  // tests/doubles/temp_dir.hpp

const Registry& registry() { return synthetic::every_probe_registry(); }

// Runs `command` writing to a temporary file; returns its exit code and what it printed.
template <typename Command>
int capture(Command&& command, std::string& text) {
  std::FILE* out = std::tmpfile();
  const int code = command(out);
  std::rewind(out);
  char buffer[4096];
  std::size_t n;
  text.clear();
  while ((n = std::fread(buffer, 1, sizeof buffer, out)) > 0) text.append(buffer, n);
  std::fclose(out);
  return code;
}

int evaluate(const std::vector<std::string>& dirs, std::string& text,
             const std::string& out_dir = "", const std::string& profile = "",
             const std::string& history = "") {
  EvaluateArgs args;
  args.dirs = dirs;
  args.out = out_dir;
  args.profile = profile;
  args.history = history;
  args.threads = 2;
  return capture([&](std::FILE* out) { return evaluate_command(args, registry(), out); }, text);
}

fs::path healthy_sweep(const fs::path& dir, std::size_t nodes) {
  synthetic::FleetSpec spec;
  spec.nodes = nodes;
  spec.faults = false;
  synthetic::write_fleet(dir, spec);
  return dir;
}

void set_started(const fs::path& run, const std::string& when) {
  nlohmann::json summary = nlohmann::json::parse(std::ifstream(run / "summary.json"));
  summary["started_utc"] = when;
  std::ofstream(run / "summary.json", std::ios::trunc) << summary.dump(2);
}

void mark_incomplete(const fs::path& run, const std::string& reason) {
  nlohmann::json summary = nlohmann::json::parse(std::ifstream(run / "summary.json"));
  summary["verdict"] = "incomplete";
  summary["exit_code"] = 3;
  summary["finished_utc"] = nullptr;
  summary["incomplete_reason"] = reason;
  std::ofstream(run / "summary.json", std::ios::trunc) << summary.dump(2);
}

// Every higher-is-better figure of a run scaled by `factor` (not the ports' negotiated rates: a
// slow run does not change them).
void scale_run(const fs::path& run, double factor) {
  std::ifstream in(run / "measurements.jsonl");
  std::string line, text;
  while (std::getline(in, line)) {
    nlohmann::json m = nlohmann::json::parse(line);
    const std::string unit = m["unit"];
    if (m["probe"] == "fabric.ib_ports") {
      text += line + "\n";
      continue;
    }
    if (unit == "GB/s" || unit == "Gb/s" || unit == "TFLOP/s" || unit == "IOPS") {
      m["value"] = m["value"].get<double>() * factor;
    }
    text += m.dump() + "\n";
  }
  std::ofstream(run / "measurements.jsonl", std::ios::trunc) << text;
}

TEST(Evaluate, AHealthySweepPasses) {
  TempDir dir;
  healthy_sweep(dir.path() / "sweep", 4);
  std::string text;
  EXPECT_EQ(evaluate({(dir.path() / "sweep").string()}, text), 0) << text;
  EXPECT_THAT(text, HasSubstr("evaluated 4 run(s): 4 node(s)"));
  EXPECT_THAT(text, HasSubstr("nodes: 4: 4 pass, 0 warn, 0 fail, 0 incomplete"));
  EXPECT_THAT(text, HasSubstr("drain (0): none"));
  // The verdict line counts the PASS findings, which the evaluation counts but never keeps.
  EXPECT_THAT(text, ::testing::ContainsRegex("verdict: PASS \\([1-9][0-9]* pass, 0 warn, 0 fail"));
  // One run directory alone, too.
  EXPECT_EQ(evaluate({(dir.path() / "sweep" / synthetic::node_name(1)).string()}, text), 0) << text;
  EXPECT_THAT(text, HasSubstr("evaluated 1 run(s): 1 node(s)"));
}

TEST(Evaluate, WhatTheRunKnewIsNeverRejudgedToPass) {
  TempDir dir;
  const fs::path sweep = healthy_sweep(dir.path() / "sweep", 5);
  mark_incomplete(sweep / synthetic::node_name(1), "timeout: rank 3 on node00001 did not arrive");
  fs::remove(sweep / synthetic::node_name(2) / "summary.json");  // killed before it began
  {
    // Killed mid-write: the last record is cut off.
    std::ofstream(sweep / synthetic::node_name(3) / "measurements.jsonl", std::ios::app)
        << "{\"schema_version\": 1, \"kind\": \"measurement\", \"probe\": \"gpu";
  }
  {
    // An error the run recorded as a finding (a probe that timed out).
    std::ofstream(sweep / synthetic::node_name(4) / "findings.jsonl")
        << R"({"schema_version": 1, "kind": "finding", "severity": "error", "probe": "coll.all_reduce", "metric": "", "subject": "", "host": "", "rank": -1, "size_bytes": null, "observed": null, "expected": null, "warn_at": null, "unit": "", "message": "timeout: rank 5 did not arrive", "evidence": "", "remedy": "check the node", "source": ""})"
        << "\n";
  }
  std::string text;
  EXPECT_EQ(evaluate({sweep.string()}, text), 3) << text;
  EXPECT_THAT(text, HasSubstr("nodes: 5: 1 pass, 0 warn, 0 fail, 4 incomplete"));
  EXPECT_THAT(text, HasSubstr("recheck (4): node00001 node00002 node00003 node00004"));
  EXPECT_THAT(text, HasSubstr("timeout: rank 3 on node00001 did not arrive"));
  EXPECT_THAT(text, HasSubstr("no summary.json"));
  EXPECT_THAT(text, HasSubstr("ends in an unfinished record"));
  EXPECT_THAT(text, HasSubstr("timeout: rank 5 did not arrive"));
  EXPECT_THAT(text, HasSubstr("verdict: INCOMPLETE"));
}

TEST(Evaluate, RefusesWhatIsNotARegularFileWithExit2) {
  TempDir dir;
  const fs::path sweep = healthy_sweep(dir.path() / "sweep", 2);
  const fs::path run = sweep / synthetic::node_name(0);
  fs::remove(run / "measurements.jsonl");
  ASSERT_EQ(::mkfifo((run / "measurements.jsonl").c_str(), 0600), 0);
  std::string text;
  const auto started = std::chrono::steady_clock::now();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(evaluate({sweep.string()}, text), 2);
  std::string error = ::testing::internal::GetCapturedStderr();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_THAT(error, HasSubstr("measurements.jsonl: refused: a FIFO (named pipe)"));

  fs::remove(run / "measurements.jsonl");
  fs::create_symlink("/dev/zero", run / "measurements.jsonl");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(evaluate({sweep.string()}, text), 2);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("refused: a character device"));

  ::testing::internal::CaptureStderr();
  EXPECT_EQ(evaluate({"/dev/zero"}, text), 2);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("/dev/zero: not a directory"));
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(evaluate({(dir.path() / "missing").string()}, text), 2);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("no such directory"));
  fs::create_directories(dir.path() / "empty");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(evaluate({(dir.path() / "empty").string()}, text), 2);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("no run directory here"));
}

TEST(Evaluate, MalformedRecordNamesFileAndLine) {
  TempDir dir;
  const fs::path sweep = healthy_sweep(dir.path() / "sweep", 2);
  const fs::path file = sweep / synthetic::node_name(1) / "measurements.jsonl";
  std::ofstream(file, std::ios::app) << "{\"schema_version\": 1, \"kind\": \"measurement\"}\n";
  std::size_t lines = 0;
  std::string line;
  for (std::ifstream in(file); std::getline(in, line);) ++lines;
  std::string text;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(evaluate({sweep.string()}, text), 2);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr(file.string() + ":" + std::to_string(lines) + ": missing field \"probe\""));
}

TEST(Evaluate, OutWritesFindingsFleetAndDrainAndIsNeverWrittenOver) {
  TempDir dir;
  synthetic::FleetSpec spec;
  spec.nodes = 16;
  synthetic::write_fleet(dir.path() / "sweep", spec);
  const fs::path out = dir.path() / "eval";
  std::string text;
  EXPECT_EQ(evaluate({(dir.path() / "sweep").string()}, text, out.string()), 1) << text;
  const nlohmann::json fleet = nlohmann::json::parse(std::ifstream(out / "fleet.json"));
  EXPECT_EQ(fleet["kind"], "fleet_evaluation");
  EXPECT_EQ(fleet["verdict"], "fail");
  EXPECT_EQ(fleet["nodes"], 16);
  EXPECT_EQ(fleet["node_summaries"].size(), 16u);
  std::ifstream drain(out / "drain.txt");
  std::vector<std::string> hosts;
  for (std::string host; std::getline(drain, host);) hosts.push_back(host);
  EXPECT_EQ(nlohmann::json(hosts), fleet["drain"]);
  EXPECT_FALSE(hosts.empty());
  std::ifstream findings(out / "findings.jsonl");
  std::size_t count = 0;
  for (std::string line; std::getline(findings, line); ++count) {
    const nlohmann::json f = nlohmann::json::parse(line);
    EXPECT_FALSE(f["host"].get<std::string>().empty()) << line;
    EXPECT_NE(f["severity"], "pass");
  }
  EXPECT_GT(count, 0u);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(evaluate({(dir.path() / "sweep").string()}, text, out.string()), 2);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("not empty"));
}

TEST(Evaluate, ASlowPathBetweenTwoNodesDrainsNeitherEnd) {
  TempDir dir;
  const fs::path sweep = healthy_sweep(dir.path() / "sweep", 8);
  {
    // node00002's RDMA rails to node00003 at 60%: both nodes are fine with their other partners.
    const fs::path file = sweep / synthetic::node_name(2) / "measurements.jsonl";
    std::ifstream in(file);
    std::string line, text;
    while (std::getline(in, line)) {
      nlohmann::json m = nlohmann::json::parse(line);
      if (m["probe"] == "fabric.rdma_bw" &&
          m["peer"].get<std::string>().rfind(synthetic::node_name(3) + "/", 0) == 0) {
        m["value"] = m["value"].get<double>() * 0.6;
      }
      text += m.dump() + "\n";
    }
    std::ofstream(file, std::ios::trunc) << text;
  }
  const fs::path out = dir.path() / "eval";
  std::string text;
  EXPECT_EQ(evaluate({sweep.string()}, text, out.string()), 1) << text;  // the fleet has a FAIL
  EXPECT_THAT(text, HasSubstr("nodes: 8: 8 pass, 0 warn, 0 fail, 0 incomplete"));
  // The pair against the other pairs (the peers), and each of its 8 rails below its tier.
  EXPECT_THAT(text, HasSubstr("links (9): between two nodes"));
  EXPECT_THAT(text, HasSubstr("FAIL   node00002--node00003 fabric.rdma_bw write_bw"));
  EXPECT_THAT(text, HasSubstr("FAIL   node00002/mlx5_7--node00003/mlx5_7 fabric.rdma_bw write_bw"));
  EXPECT_THAT(text, HasSubstr("drain (0): none"));
  const nlohmann::json fleet = nlohmann::json::parse(std::ifstream(out / "fleet.json"));
  EXPECT_EQ(fleet["verdict"], "fail");
  EXPECT_TRUE(fleet["drain"].empty());
  ASSERT_EQ(fleet["links"].size(), 9u);
  for (const nlohmann::json& link : fleet["links"]) {
    EXPECT_EQ(link["hosts"], nlohmann::json({"node00002", "node00003"})) << link;
    EXPECT_EQ(link["severity"], "fail") << link;
  }
  EXPECT_EQ(std::count_if(fleet["links"].begin(), fleet["links"].end(),
                          [](const nlohmann::json& link) {
                            return link["subject"] == "node00002--node00003";
                          }),
            1);
  EXPECT_EQ(std::ifstream(out / "drain.txt").peek(), std::char_traits<char>::eof());
}

// storage.ckpt_write's records appended to each node's run, as a run of that node alone records
// them: 4 ranks on the shared path /mnt/lustre, their uneven shares and the node's aggregate,
// `aggregate(node)` GB/s.
void add_ckpt_writes(const fs::path& sweep, std::size_t nodes,
                     const std::function<double(std::size_t)>& aggregate) {
  for (std::size_t n = 0; n < nodes; ++n) {
    const std::string host = synthetic::node_name(n);
    std::ofstream out(sweep / host / "measurements.jsonl", std::ios::app);
    const std::map<std::string, std::string> params = {
        {"engine", "io_uring"}, {"block_size", "1048576"}, {"direct", "0 (buffered + fsync)"},
        {"fs_type", "lustre"},  {"locality", "network"},   {"shared_across_hosts", "1"}};
    const double rate = aggregate(n);
    for (int rank = 0; rank < 4; ++rank) {
      Measurement m = make_measurement("storage.ckpt_write", "bw_rank",
                                       rate / 4 * (rank == 0 ? 0.4 : 1.2), "GB/s", "/mnt/lustre");
      m.host = host;
      m.rank = rank;
      m.size_bytes = 1ull << 30;
      m.params = params;
      out << to_jsonl_line(to_json(m));
    }
    Measurement m =
        make_measurement("storage.ckpt_write", "bw_aggregate", rate, "GB/s", "/mnt/lustre");
    m.host = host;
    m.size_bytes = 1ull << 30;
    m.params = params;
    m.params["scope"] = "all ranks";
    m.params["ranks"] = "4";
    out << to_jsonl_line(to_json(m));
  }
}

TEST(Evaluate, ACheckpointWriteAtHalfItsPeersOnTheSharedPathIsAWarn) {
  TempDir dir;
  const fs::path sweep = healthy_sweep(dir.path() / "sweep", 8);
  add_ckpt_writes(sweep, 8,
                  [](std::size_t n) { return n == 5 ? 1.2 : 2.4 + 0.01 * static_cast<double>(n); });
  const fs::path out = dir.path() / "eval";
  std::string text;
  EXPECT_EQ(evaluate({sweep.string()}, text, out.string()), 0) << text;  // WARN only
  EXPECT_THAT(text, HasSubstr("nodes: 8: 7 pass, 1 warn, 0 fail, 0 incomplete"));
  EXPECT_THAT(text, HasSubstr("drain (0): none"));
  std::ifstream findings(out / "findings.jsonl");
  std::string line;
  std::vector<nlohmann::json> warns;
  while (std::getline(findings, line)) {
    const nlohmann::json f = nlohmann::json::parse(line);
    if (f["severity"] != "pass") warns.push_back(f);
  }
  ASSERT_EQ(warns.size(), 1u) << text;
  EXPECT_EQ(warns[0]["severity"], "warn");
  EXPECT_EQ(warns[0]["host"], synthetic::node_name(5));
  EXPECT_EQ(warns[0]["subject"], "/mnt/lustre");
  EXPECT_THAT(warns[0]["message"].get<std::string>(),
              HasSubstr("storage.ckpt_write bw_aggregate at 1GiB on /mnt/lustre (4 ranks of the "
                        "node): 1.2 GB/s is"));
  EXPECT_THAT(warns[0]["message"].get<std::string>(),
              HasSubstr("below the fleet median 2.425 GB/s of 8 nodes"));
  EXPECT_THAT(warns[0]["message"].get<std::string>(),
              HasSubstr("or contention on the shared filesystem"));

  // Every node near the median: nothing.
  TempDir healthy;
  const fs::path quiet = healthy_sweep(healthy.path() / "sweep", 8);
  add_ckpt_writes(quiet, 8, [](std::size_t n) { return 2.4 + 0.03 * static_cast<double>(n); });
  EXPECT_EQ(evaluate({quiet.string()}, text), 0) << text;
  EXPECT_THAT(text, HasSubstr("nodes: 8: 8 pass, 0 warn, 0 fail, 0 incomplete"));
}

// gpu.gemm's output hash records appended to each node's run (8 GPUs a node): `hash(node, gpu)`,
// the driver `driver(node)`, one cuBLAS.
void add_gemm_hashes(const fs::path& sweep, std::size_t nodes,
                     const std::function<std::string(std::size_t, int)>& hash,
                     const std::function<std::string(std::size_t)>& driver) {
  for (std::size_t n = 0; n < nodes; ++n) {
    const std::string host = synthetic::node_name(n);
    std::ofstream out(sweep / host / "measurements.jsonl", std::ios::app);
    for (int gpu = 0; gpu < 8; ++gpu) {
      Measurement m = make_measurement("gpu.gemm", "output_hash_changes", 0, "count",
                                       "gpu" + std::to_string(gpu));
      m.host = host;
      char bus[16];
      std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x18 + gpu);
      m.params = {{"bus_id", bus},
                  {"model", "NVIDIA H100 80GB HBM3"},
                  {"sms", "132"},
                  {"dtype", "bf16"},
                  {"m_n_k", "8192"},
                  {"driver", driver(n)},
                  {"cublas_library", "/usr/local/cuda/lib64/libcublas.so.13.1.0.3"},
                  {"output_hash", hash(n, gpu)},
                  {"output_hash_first", hash(n, gpu)}};
      out << to_jsonl_line(to_json(m));
    }
  }
}

// Issue 28 (2): among 48 like GPUs of 6 nodes, each in a run of its own, the one whose GEMM output
// hash differs is named with its host and bus id, and only its node is drained.
TEST(Evaluate, AMinorityGemmHashAmongLikeGpusOfTheFleetIsAFailNamingTheGpu) {
  TempDir dir;
  const fs::path sweep = healthy_sweep(dir.path() / "sweep", 6);
  add_gemm_hashes(
      sweep, 6,
      [](std::size_t node, int gpu) {
        return node == 4 && gpu == 5 ? "5eed00000000beef" : "0123456789abcdef";
      },
      [](std::size_t) { return "580.65.06"; });
  const fs::path out = dir.path() / "eval";
  std::string text;
  EXPECT_EQ(evaluate({sweep.string()}, text, out.string()), 1) << text;
  EXPECT_THAT(text, HasSubstr("nodes: 6: 5 pass, 0 warn, 1 fail, 0 incomplete"));
  EXPECT_THAT(text, HasSubstr("drain (1): " + synthetic::node_name(4)));
  std::ifstream findings(out / "findings.jsonl");
  std::string line;
  std::vector<nlohmann::json> fails;
  while (std::getline(findings, line)) {
    const nlohmann::json f = nlohmann::json::parse(line);
    if (f["severity"] != "pass") fails.push_back(f);
  }
  ASSERT_EQ(fails.size(), 1u) << text;
  EXPECT_EQ(fails[0]["severity"], "fail");
  EXPECT_EQ(fails[0]["host"], synthetic::node_name(4));
  EXPECT_EQ(fails[0]["subject"], "gpu5");
  EXPECT_EQ(fails[0]["message"].get<std::string>(),
            "gpu5 (0000:1d:00.0) of " + synthetic::node_name(4) +
                ": output hash 5eed00000000beef where 47 of the bf16 GEMM 8192^3 on 48 NVIDIA "
                "H100 80GB HBM3 GPUs (cuBLAS libcublas.so.13.1.0.3, driver 580.65.06) gave "
                "0123456789abcdef");

  // The same other hash on a node with another driver is never compared with the rest.
  TempDir other;
  const fs::path versions = healthy_sweep(other.path() / "sweep", 6);
  add_gemm_hashes(
      versions, 6,
      [](std::size_t node, int) { return node == 4 ? "5eed00000000beef" : "0123456789abcdef"; },
      [](std::size_t node) { return node == 4 ? "575.57.08" : "580.65.06"; });
  EXPECT_EQ(evaluate({versions.string()}, text), 0) << text;
  EXPECT_THAT(text, HasSubstr("nodes: 6: 6 pass, 0 warn, 0 fail, 0 incomplete"));
}

// Each record of a run replaced by what `change` makes of it (none, it, or more).
void rewrite_run(const fs::path& run,
                 const std::function<std::vector<nlohmann::json>(nlohmann::json)>& change) {
  std::ifstream in(run / "measurements.jsonl");
  std::string line, text;
  while (std::getline(in, line)) {
    for (const nlohmann::json& m : change(nlohmann::json::parse(line))) text += m.dump() + "\n";
  }
  std::ofstream(run / "measurements.jsonl", std::ios::trunc) << text;
}

bool is_collective(const nlohmann::json& m) {
  return m["probe"].get<std::string>().rfind("coll.", 0) == 0 && m["params"].contains("ranks");
}

int baseline(const std::vector<std::string>& dirs, const fs::path& out, std::string& text,
             std::string& errors) {
  BaselineArgs args;
  args.dirs = dirs;
  args.out = out.string();
  ::testing::internal::CaptureStderr();
  const int code =
      capture([&](std::FILE* file) { return baseline_command(args, registry(), file); }, text);
  errors = ::testing::internal::GetCapturedStderr();
  return code;
}

// Each of `runs` judged against the baseline `profile`: a PASS with no WARN. A source run passes
// its own baseline: three runs' storage figures spread wider than their MAD says (each node's
// drives have their own speed), and PASS reaches down to the worst of them.
void expect_every_run_passes(const std::vector<std::string>& runs, const fs::path& profile) {
  std::string text;
  for (const std::string& run : runs) {
    EXPECT_EQ(evaluate({run}, text, "", profile.string()), 0) << run << "\n" << text;
    EXPECT_THAT(text, ::testing::ContainsRegex("verdict: PASS \\([0-9]+ pass, 0 warn, 0 fail"))
        << run << "\n"
        << text;
  }
}

// Issue 27 (7): three of eight golden runs measured the collectives at 16 ranks (their busbw 15%
// lower). Before, `baseline` pooled them with the 8-rank runs' figures without a word, and a
// 16-rank source run then FAILed against its own baseline; now the runs are refused (exit 2),
// each shape named with its runs, and a baseline of each shape's runs passes each of its sources.
TEST(Baseline, RunsOfDifferentShapesAreRefusedAndEachShapePassesItsOwnSources) {
  TempDir dir;
  const fs::path golden = healthy_sweep(dir.path() / "golden", 8);
  for (std::size_t node = 5; node < 8; ++node) {
    rewrite_run(golden / synthetic::node_name(node), [](nlohmann::json m) {
      if (is_collective(m)) {
        m["params"]["ranks"] = "16";
        if (m["unit"] == "GB/s") m["value"] = m["value"].get<double>() * 0.85;
      }
      return std::vector<nlohmann::json>{m};
    });
  }
  std::string text, errors;
  EXPECT_EQ(baseline({golden.string()}, dir.path() / "mixed.toml", text, errors), 2) << text;
  EXPECT_THAT(errors, HasSubstr("in different shapes"));
  EXPECT_THAT(errors,
              ::testing::ContainsRegex(
                  "coll\\.[a-z_]+ [a-z_]+ at [0-9]+[KMG]iB \\(world\\): \\[backend=nccl; "
                  "placement=out; ranks=16; type=float\\] in [^;]*node00005[^;]*; "
                  "\\[backend=nccl; placement=out; ranks=8; type=float\\] in [^;]*node00000"));
  EXPECT_FALSE(fs::exists(dir.path() / "mixed.toml"));

  std::vector<std::string> eight, sixteen;
  for (std::size_t node = 0; node < 8; ++node) {
    (node < 5 ? eight : sixteen).push_back((golden / synthetic::node_name(node)).string());
  }
  for (const auto& [runs, name] : {std::pair{eight, "eight.toml"}, std::pair{sixteen, "16.toml"}}) {
    const fs::path profile = dir.path() / name;
    ASSERT_EQ(baseline(runs, profile, text, errors), 0) << text << errors;
    EXPECT_THAT(errors, ::testing::Not(HasSubstr("would not pass"))) << errors;
    expect_every_run_passes(runs, profile);
  }
}

// Every run measures the collectives in place and out of place (the plan's "both"): each
// placement's thresholds come from its own figures, the expectation takes the lower, and every
// source run passes.
TEST(Baseline, ShapesEveryRunMeasuredKeepTheirOwnFigures) {
  TempDir dir;
  const fs::path golden = healthy_sweep(dir.path() / "golden", 6);
  std::vector<std::string> runs;
  for (std::size_t node = 0; node < 6; ++node) {
    runs.push_back((golden / synthetic::node_name(node)).string());
    rewrite_run(golden / synthetic::node_name(node), [](nlohmann::json m) {
      std::vector<nlohmann::json> out{m};
      if (is_collective(m)) {
        m["params"]["placement"] = "in";
        if (m["unit"] == "GB/s") m["value"] = m["value"].get<double>() * 0.9;
        out.push_back(m);
      }
      return out;
    });
  }
  const fs::path profile = dir.path() / "both.toml";
  std::string text, errors;
  ASSERT_EQ(baseline({golden.string()}, profile, text, errors), 0) << text << errors;
  const std::string toml = fabcheck::testing::read_whole_file(profile);
  EXPECT_THAT(toml, HasSubstr("2 shapes the profile cannot tell apart, each from its own figures, "
                              "the thresholds the most lenient's: backend=nccl; placement=in; "
                              "ranks=8; type=float: median "));
  expect_every_run_passes(runs, profile);
}

// Every run measures the collectives with NCCL and with MPI (MPI's busbw 40% lower): each backend
// its own [[expect]] (the profile's `backend` key), and a later run whose MPI figures sit at
// NCCL's is judged by MPI's, its NCCL figures 40% lower FAIL by NCCL's.
TEST(Baseline, BackendsEveryRunMeasuredGetAnExpectationEach) {
  TempDir dir;
  const fs::path golden = healthy_sweep(dir.path() / "golden", 4);
  auto both_backends = [](double nccl, double mpi) {
    return [nccl, mpi](nlohmann::json m) {
      std::vector<nlohmann::json> out;
      if (!is_collective(m)) return std::vector<nlohmann::json>{m};
      for (const auto& [backend, scale] : {std::pair{"nccl", nccl}, std::pair{"mpi", mpi}}) {
        nlohmann::json copy = m;
        copy["params"]["backend"] = backend;
        if (copy["unit"] == "GB/s") copy["value"] = copy["value"].get<double>() * scale;
        out.push_back(copy);
      }
      return out;
    };
  };
  for (std::size_t node = 0; node < 4; ++node) {
    rewrite_run(golden / synthetic::node_name(node), both_backends(1.0, 0.6));
  }
  const fs::path profile = dir.path() / "backends.toml";
  std::string text, errors;
  ASSERT_EQ(baseline({golden.string()}, profile, text, errors), 0) << text << errors;
  const std::string toml = fabcheck::testing::read_whole_file(profile);
  EXPECT_THAT(toml, HasSubstr("backend = \"mpi\""));
  EXPECT_THAT(toml, HasSubstr("backend = \"nccl\""));
  std::vector<std::string> runs;
  for (std::size_t node = 0; node < 4; ++node)
    runs.push_back((golden / synthetic::node_name(node)).string());
  expect_every_run_passes(runs, profile);
  const fs::path later = healthy_sweep(dir.path() / "later", 1) / synthetic::node_name(0);
  rewrite_run(later, both_backends(0.6, 1.0));
  EXPECT_EQ(evaluate({later.string()}, text, "", profile.string()), 1) << text;
  EXPECT_THAT(text, ::testing::ContainsRegex("FAIL .*coll\\.[a-z_]+ busbw"));
}

TEST(Baseline, RoundTripHealthyRunsPassARunTwentyPercentLowerFails) {
  TempDir dir;
  const fs::path golden = healthy_sweep(dir.path() / "golden", 8);
  const fs::path profile = dir.path() / "my-cluster.toml";
  BaselineArgs args;
  args.dirs = {golden.string()};
  args.out = profile.string();
  std::string text;
  EXPECT_EQ(capture([&](std::FILE* out) { return baseline_command(args, registry(), out); }, text),
            0)
      << text;
  EXPECT_THAT(text, HasSubstr("from 8 run(s)"));
  const Profile loaded = registry().load_profile(profile);
  EXPECT_EQ(loaded.name, "my-cluster");
  EXPECT_GT(loaded.expectations.size(), 50u);
  EXPECT_EQ(loaded.node.at("gpu_pcie"), "5x16");
  EXPECT_EQ(loaded.node.at("ib_ports"), "8");
  // Never written over.
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(capture([&](std::FILE* out) { return baseline_command(args, registry(), out); }, text),
            2);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("never written over"));

  // Other healthy nodes of the same kind pass against it...
  const fs::path tonight = healthy_sweep(dir.path() / "tonight", 3);
  EXPECT_EQ(evaluate({tonight.string()}, text, "", profile.string()), 0) << text;
  // ...and one 20% slower fails, on that node only.
  scale_run(tonight / synthetic::node_name(1), 0.8);
  EXPECT_EQ(evaluate({tonight.string()}, text, "", profile.string()), 1) << text;
  EXPECT_THAT(text, HasSubstr("drain (1): node00001"));
  // Among its peers the 20% gap alone fails it; on its own (no other node, every GPU scaled
  // alike) only the baseline's thresholds can: a FAIL whose source is the baseline.
  const fs::path alone = dir.path() / "alone";
  EXPECT_EQ(evaluate({(tonight / synthetic::node_name(1)).string()}, text, alone.string(),
                     profile.string()),
            1)
      << text;
  EXPECT_THAT(text, HasSubstr("evaluated 1 run(s): 1 node(s)"));
  std::size_t from_baseline = 0;
  std::ifstream findings(alone / "findings.jsonl");
  for (std::string line; std::getline(findings, line);) {
    const nlohmann::json f = nlohmann::json::parse(line);
    if (f["severity"] != "fail") continue;
    EXPECT_THAT(f["source"].get<std::string>(), HasSubstr("baseline ")) << line;
    EXPECT_THAT(f["source"].get<std::string>(), HasSubstr("on 8 host(s)")) << line;
    ++from_baseline;
  }
  EXPECT_GT(from_baseline, 0u) << text;
}

// Issue 23 (3, 4): links planted in `evaluate --out DIR` or at `baseline -o FILE` after the checks,
// while the command works, are never written through (on main: truncating ofstreams followed
// them and root rewrote two root-owned files). An attacker thread plants them at delays spread
// over the command's duration, 12 times each.
template <typename Command>
void plant_links_while(const fs::path& where, const std::vector<std::string>& names,
                       const fs::path& victim, Command&& command) {
  const auto start = std::chrono::steady_clock::now();
  command();
  const auto took = std::chrono::steady_clock::now() - start;
  for (int round = 0; round < 12; ++round) {
    command.reset();
    std::thread attacker([&] {
      std::this_thread::sleep_for(took * round / 12);
      std::error_code ignored;
      for (const std::string& name : names) fs::create_symlink(victim, where / name, ignored);
    });
    command();
    attacker.join();
    ASSERT_EQ(fabcheck::testing::read_whole_file(victim), "root's own file\n")
        << "written through a link planted after " << round << "/12 of the run";
  }
}

TEST(Evaluate, OutNeverWritesThroughLinksPlantedWhileItWorks) {
  TempDir dir;
  synthetic::FleetSpec spec;
  spec.nodes = 16;
  synthetic::write_fleet(dir.path() / "sweep", spec);
  const fs::path victim = dir.path() / "victim";
  fabcheck::testing::write_whole_file(victim, "root's own file\n");
  const fs::path out = dir.path() / "eval";
  struct {
    const fs::path& dir;
    const fs::path& out;
    void reset() {
      fs::remove_all(out);
      fs::create_directory(out);
    }
    void operator()() {
      std::string text;
      ::testing::internal::CaptureStderr();
      evaluate({(dir / "sweep").string()}, text, out.string());
      ::testing::internal::GetCapturedStderr();
    }
  } command{dir.path(), out};
  command.reset();
  plant_links_while(out, {"fleet.json", "findings.jsonl", "drain.txt"}, victim, command);
}

TEST(Evaluate, OutOwnedByAnotherUserOrOpenToOthersIsExit2) {
  TempDir dir;
  synthetic::FleetSpec spec;
  spec.nodes = 16;
  synthetic::write_fleet(dir.path() / "sweep", spec);
  const fs::path out = dir.path() / "eval";
  fs::create_directory(out);
  ::chmod(out.c_str(), 0777);
  std::string text;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(evaluate({(dir.path() / "sweep").string()}, text, out.string()), 2);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("writable by others without the sticky bit"));
  if (::geteuid() == 0) {
    ::chmod(out.c_str(), 0755);
    ASSERT_EQ(::chown(out.c_str(), 65534, 65534), 0);
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(evaluate({(dir.path() / "sweep").string()}, text, out.string()), 2);
    EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("owned by uid 65534"));
  }
  EXPECT_TRUE(fs::is_empty(out));
}

TEST(Baseline, NeverWritesThroughALinkPlantedWhileItWorks) {
  TempDir dir;
  const fs::path golden = healthy_sweep(dir.path() / "golden", 8);
  const fs::path victim = dir.path() / "victim";
  fabcheck::testing::write_whole_file(victim, "root's own file\n");
  const fs::path profile = dir.path() / "my-cluster.toml";
  struct {
    const fs::path& golden;
    const fs::path& profile;
    void reset() { fs::remove(profile); }
    void operator()() {
      BaselineArgs args;
      args.dirs = {golden.string()};
      args.out = profile.string();
      std::string text;
      ::testing::internal::CaptureStderr();
      capture([&](std::FILE* out) { return baseline_command(args, registry(), out); }, text);
      ::testing::internal::GetCapturedStderr();
    }
  } command{golden, profile};
  command.reset();
  plant_links_while(dir.path(), {"my-cluster.toml"}, victim, command);
}

TEST(Compare, AgainstAnEarlierRun) {
  TempDir dir;
  const fs::path before = healthy_sweep(dir.path() / "before", 2);
  synthetic::FleetSpec spec;
  spec.nodes = 2;
  spec.faults = false;
  spec.seed = 8;  // other noise, the same hardware
  synthetic::write_fleet(dir.path() / "now", spec);
  CompareArgs args;
  args.dirs = {(dir.path() / "now").string()};
  args.against = before.string();
  std::string text;
  EXPECT_EQ(capture([&](std::FILE* out) { return compare_command(args, registry(), out); }, text),
            0)
      << text;
  EXPECT_THAT(text, HasSubstr("no figure fell beyond the tolerance"));
  scale_run(dir.path() / "now" / synthetic::node_name(0), 0.8);
  EXPECT_EQ(capture([&](std::FILE* out) { return compare_command(args, registry(), out); }, text),
            1)
      << text;
  // One finding for the GPU, every figure of it that fell listed in it.
  EXPECT_THAT(text, ::testing::ContainsRegex("FAIL   node00000: gpu0: [0-9]+ figures fell: FAIL "));
  EXPECT_THAT(text, ::testing::ContainsRegex("[:;] FAIL gpu\\.h2d bw at "));
  EXPECT_THAT(text, HasSubstr("(median of 1 earlier run; tolerance 10%: the floor (--tolerance); "
                              "1 earlier run, too few (under 3) for their spread)"));
  EXPECT_THAT(text, HasSubstr("is 20% below its reference"));
  EXPECT_THAT(text, HasSubstr("trend (median over the node's figures of value / reference):"));
  EXPECT_THAT(text, HasSubstr("now 0.80"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("FAIL   node00001")));
}

TEST(Compare, AgainstAHistoryOfNightsWithOneRunDirectoryPerNode) {
  if (!history_available()) GTEST_SKIP() << "built without HDF5";
  TempDir dir;
  const fs::path history = dir.path() / "fleet.h5";
  synthetic::FleetSpec spec;
  spec.nodes = 6;
  spec.faults = false;
  std::string text;
  for (int night = 3; night >= 1; --night) {  // the oldest first, as a sweep appends them
    const fs::path sweep = dir.path() / ("night-" + std::to_string(night));
    synthetic::write_fleet(sweep, spec, night);
    for (std::size_t i = 0; i < spec.nodes; ++i) {
      set_started(sweep / synthetic::node_name(i), fmt::format("2026-11-2{}T02:00:00Z", 7 - night));
    }
    EXPECT_EQ(evaluate({sweep.string()}, text, "", "", history.string()), 0) << text;
    EXPECT_THAT(text, HasSubstr("history: appended to " + history.string()));
  }
  // 18 runs in the history, 3 of them this node's: the default --last (7) counts runs per host,
  // not the last 7 rows of the file (mostly other nodes of the last night).
  synthetic::write_fleet(dir.path() / "tonight", spec);
  CompareArgs args;
  args.dirs = {(dir.path() / "tonight" / synthetic::node_name(2)).string()};
  args.against = history.string();
  args.all = true;
  ASSERT_EQ(args.last, 7u);
  EXPECT_EQ(capture([&](std::FILE* out) { return compare_command(args, registry(), out); }, text),
            0)
      << text;
  EXPECT_THAT(text, HasSubstr("of 1 run(s) with 3 earlier run(s) of history"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("# compared 0 figures")));
  EXPECT_THAT(text, ::testing::ContainsRegex("node00002 +2026-11-24T02:00:00Z [0-9.]+  "
                                             "2026-11-25T02:00:00Z [0-9.]+  "
                                             "2026-11-26T02:00:00Z [0-9.]+  now"));
  // --last 2: this node's last two nights.
  args.last = 2;
  capture([&](std::FILE* out) { return compare_command(args, registry(), out); }, text);
  EXPECT_THAT(text, HasSubstr("with 2 earlier run(s) of history"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("2026-11-24")));
}

TEST(Compare, ARunInTheHistoryIsNotItsOwnReference) {
  // `run --history H` then `compare RUN --against H`: tonight's run, 20% slower, is already in the
  // history; it must be compared with last night alone (20% below), not with a median that
  // includes itself (which would read 11% below).
  if (!history_available()) GTEST_SKIP() << "built without HDF5";
  TempDir dir;
  const fs::path history = dir.path() / "fleet.h5";
  synthetic::FleetSpec spec;
  spec.nodes = 2;
  spec.faults = false;
  std::string text;
  const fs::path last_night = dir.path() / "last-night";
  synthetic::write_fleet(last_night, spec, 1);
  const fs::path tonight = dir.path() / "tonight";
  synthetic::write_fleet(tonight, spec, 1);
  for (std::size_t i = 0; i < spec.nodes; ++i) {
    set_started(last_night / synthetic::node_name(i), "2026-11-29T02:00:00Z");
    set_started(tonight / synthetic::node_name(i), "2026-11-30T02:00:00Z");
  }
  scale_run(tonight / synthetic::node_name(0), 0.8);
  EXPECT_EQ(evaluate({last_night.string()}, text, "", "", history.string()), 0) << text;
  evaluate({tonight.string()}, text, "", "", history.string());
  CompareArgs args;
  args.dirs = {(tonight / synthetic::node_name(0)).string()};
  args.against = history.string();
  args.last = 1;  // one other night, though tonight is the last run in the file
  EXPECT_EQ(capture([&](std::FILE* out) { return compare_command(args, registry(), out); }, text),
            1)
      << text;
  EXPECT_THAT(text, HasSubstr("with 1 earlier run(s) of history"));
  EXPECT_THAT(text, HasSubstr("is 20% below its reference"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("11% below")));
  EXPECT_THAT(text, ::testing::ContainsRegex("node00000 +2026-11-29T02:00:00Z [0-9.]+  now"));
}

}  // namespace
}  // namespace fabcheck
