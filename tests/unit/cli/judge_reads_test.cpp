// Every judge the binary registers declares the measurements it reads (Judge::reads), and finds
// exactly what it finds from all of a run's measurements when given only those: over the synthetic
// fleet (tests/synthetic, node by node and all at once) and over the inputs of the family judges'
// own tests that the fleet lacks (GPU telemetry, pre-flight, versions, host.*, kernel logs, NCCL
// logs with their node's ports and placement, node pairs, sysfs trees), with and without a [node]
// table. `fabcheck evaluate` may then build only the measurements some judge reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "bench/cli/probe_families.hpp"
#include "bench/coll/node_bisect.hpp"
#include "bench/coll/node_pairs.hpp"
#include "bench/sys/hwloc_locality.hpp"
#include "fabric/ib_port.hpp"
#include "fabric/link_measurements.hpp"
#include "fabric/nccl_log.hpp"
#include "fabric/nccl_transport_records.hpp"
#include "fabric/pcie_link.hpp"
#include "fabric/topology.hpp"
#include "fabric/topology_records.hpp"
#include "host/gpu_preflight.hpp"
#include "host/host_cpu.hpp"
#include "host/kernel_log_scan.hpp"
#include "host/memory_bandwidth.hpp"
#include "host/node_hardware.hpp"
#include "host/numa_binding.hpp"
#include "host/preflight.hpp"
#include "host/sdc_cores.hpp"
#include "kernels/gemm_hashes.hpp"
#include "kernels/gpu_error_counters.hpp"
#include "kernels/sdc_comparison.hpp"
#include "kernels/throttle_analysis.hpp"
#include "results/fleet_store.hpp"
#include "results/line_input.hpp"
#include "results/record_json.hpp"
#include "results/run_reader.hpp"
#include "tests/doubles/bisect_records.hpp"
#include "tests/doubles/fake_nvml.hpp"
#include "tests/doubles/temp_dir.hpp"
#include "tests/synthetic/every_probe_registry.hpp"
#include "tests/synthetic/synthetic_fleet.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using fabcheck::testing::TempDir;  // tests/doubles/temp_dir.hpp

const std::string kFixtures = FABCHECK_FIXTURES_DIR;

const Registry& registry() { return synthetic::every_probe_registry(); }

TEST(FigureRef, ProbeFamilyEveryProbeAndEveryMetric) {
  const FigureRef one{"gpu.health", "error_counter_delta"};
  EXPECT_TRUE(one.matches("gpu.health", "error_counter_delta"));
  EXPECT_FALSE(one.matches("gpu.health", "temperature_c"));
  EXPECT_FALSE(one.matches("fabric.ib_ports", "error_counter_delta"));
  const FigureRef probe{"host.cpu", ""};
  EXPECT_TRUE(probe.matches("host.cpu", "steal_pct"));
  EXPECT_FALSE(probe.matches("host.cpus", "steal_pct"));
  const FigureRef family{"gpu.*", "temperature_c"};
  EXPECT_TRUE(family.matches("gpu.health", "temperature_c"));
  EXPECT_TRUE(family.matches("gpu.gemm", "temperature_c"));
  EXPECT_FALSE(family.matches("gpux.health", "temperature_c"));
  EXPECT_FALSE(family.matches("gpu", "temperature_c"));
  EXPECT_FALSE(family.matches("gpu.gemm", "bf16_tflops"));
  const FigureRef metric_anywhere{"*", "clock_end_vs_start"};
  EXPECT_TRUE(metric_anywhere.matches("gpu.gemm", "clock_end_vs_start"));
  EXPECT_FALSE(metric_anywhere.matches("gpu.gemm", "bf16_tflops"));
  EXPECT_TRUE(FigureRef({"*", ""}).is_everything());
  EXPECT_FALSE(family.is_everything());
  EXPECT_EQ(figure_name(one), "gpu.health/error_counter_delta");
  EXPECT_EQ(figure_name(probe), "host.cpu/*");
}

TEST(JudgeReads, AnUndeclaredJudgeReadsEverythingADeclaredOneOnlyItsFigures) {
  Judge undeclared;
  EXPECT_TRUE(reads_everything(undeclared));
  EXPECT_TRUE(reads_figure(undeclared, "storage.seq_read", "bw"));
  Judge declared;
  declared.reads = {{"host.cpu", ""}, {"gpu.*", "temperature_c"}};
  EXPECT_FALSE(reads_everything(declared));
  EXPECT_TRUE(reads_figure(declared, "host.cpu", "steal_pct"));
  EXPECT_TRUE(reads_figure(declared, "gpu.gemm", "temperature_c"));
  EXPECT_FALSE(reads_figure(declared, "storage.seq_read", "bw"));
  Judge everything;
  everything.reads = kEveryFigure;
  EXPECT_TRUE(reads_everything(everything));
  EXPECT_TRUE(reads_figure(everything, "storage.seq_read", "bw"));
  EXPECT_FALSE(reads_figure(std::vector<Judge>{declared}, "coll.all_reduce", "busbw"));
  EXPECT_TRUE(reads_figure(std::vector<Judge>{declared, undeclared}, "coll.all_reduce", "busbw"));
}

// A judge added without saying what it reads fails here: an empty `reads` is read as everything,
// which is safe but spares `evaluate` nothing.
TEST(JudgeReads, EveryRegisteredJudgeDeclaresWhatItReads) {
  ASSERT_GE(registry().judges().size(), 13u);
  std::set<std::string> names;
  for (const Judge& judge : registry().judges()) {
    names.insert(judge.name);
    EXPECT_FALSE(judge.reads.empty()) << "judge \"" << judge.name << "\" declares no reads";
    for (const FigureRef& figure : judge.reads) {
      EXPECT_FALSE(figure.probe.empty()) << judge.name << ": " << figure_name(figure);
    }
  }
  for (const char* name : {"preflight", "versions", "host.cpu", "host.numa", "host.mem_bw",
                           "host.sdc", "kernel_log", "gpu throttling", "gpu error counters", "gpu",
                           "fabric", "node_pairs", "nccl_transport", "peers"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
  // Only the fleet's peer judge reads everything (it takes the run's hosts from every record).
  for (const Judge& judge : registry().judges()) {
    EXPECT_EQ(reads_everything(judge), judge.name == "peers") << judge.name;
  }
}

// --- the inputs ------------------------------------------------------------------------------

std::vector<Measurement> on_host(std::vector<Measurement> measurements, const std::string& host) {
  for (Measurement& m : measurements) m.host = host;
  return measurements;
}

void append(std::vector<Measurement>& to, const std::vector<Measurement>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

// tests/fixtures/gpu/*.jsonl (gpu_judgement_test.cpp's sets: telemetry at rest and under load).
std::vector<Measurement> gpu_set(const std::string& name) {
  const std::string path = kFixtures + "/gpu/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::vector<Measurement> measurements;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    measurements.push_back(
        measurement_from_json(nlohmann::json::parse(line), path + ":" + std::to_string(number)));
  }
  return measurements;
}

// node.preflight through the NVML test double (as preflight_test.cpp), plus the records the
// probe writes by hand: the fabric manager and the node's versions.
std::vector<Measurement> preflight_of(std::vector<testing::FakeGpu> gpus) {
  auto shared = std::make_shared<std::vector<testing::FakeGpu>>(std::move(gpus));
  const NvmlSession session = start_nvml(testing::make_fake_nvml(shared));
  EXPECT_TRUE(session.ok()) << session.reason;
  std::vector<std::string> unreadable;
  auto read = read_gpu_preflight(*session.api, session.device_count, {1}, {}, unreadable);
  return gpu_preflight_measurements(read, kPreflightProbe);
}

std::vector<testing::FakeGpu> eight_idle_gpus() {
  std::vector<testing::FakeGpu> gpus(8);
  for (int i = 0; i < 8; ++i) {
    char bus[32];
    std::snprintf(bus, sizeof bus, "00000000:%02x:00.0", 0x18 + 0x10 * i);
    gpus[i].bus_id = bus;
    gpus[i].reasons = 0x1;  // idle
  }
  return gpus;
}

Measurement node_record(const char* metric, double value,
                        std::map<std::string, std::string> params) {
  Measurement m;
  m.probe = kPreflightProbe;
  m.metric = metric;
  m.subject = "node";
  m.value = value;
  m.unit = "count";
  m.params = std::move(params);
  return m;
}

std::vector<Measurement> preflight_inputs() {
  std::vector<Measurement> out;
  auto unfit = eight_idle_gpus();
  unfit[3].processes = {{4121, 30'000'000'000ULL, "train.py"}};
  unfit[3].memory_used = 30'560'000'000ULL;
  unfit[3].utilization = 97;
  unfit[0].remap_pending = 1;
  unfit[1].retired_pending = true;
  unfit[2].remap_failed = 1;
  unfit[4].persistence = false;
  unfit[5].retired_sbe = 50;
  unfit[5].retired_dbe = 10;
  append(out, on_host(preflight_of(unfit), "pf-unfit"));
  append(out, on_host(preflight_of(eight_idle_gpus()), "pf-fit"));
  std::vector<Measurement> more;
  more.push_back(node_record("fabric_manager", 0, {{"nvswitches", "4"}}));
  more.push_back(node_record("unreadable_gpus", 1, {{"reasons", "gpu2: GPU is lost"}}));
  append(out, on_host(more, "pf-unfit"));
  // The PCI bus against the drivers (host/node_hardware): GPUs without a driver, and a full bus.
  GpuDriverView no_nvml;
  no_nvml.nvml_problem = "NVML: libnvidia-ml.so.1 not found";
  append(out, on_host(node_hardware_measurements(
                          compare_node_hardware(
                              read_pci_devices(kFixtures + "/host/pci/no-driver"), no_nvml),
                          kPreflightProbe),
                      "pf-unfit"));
  GpuDriverView recorded;
  recorded.asked = false;
  append(out, on_host(node_hardware_measurements(
                          compare_node_hardware(
                              read_pci_devices(kFixtures + "/host/pci/eight-gpus"), recorded),
                          kPreflightProbe),
                      "pf-fit"));
  for (const char* host : {"pf-unfit", "pf-fit", "pf-third"}) {
    Measurement v = node_record(kVersionsMetric, 1,
                                {{"driver", "550.54.15"}, {"nccl", "2.21.5"}, {"kernel", "5.15"}});
    if (std::string(host) == "pf-fit") v.params["driver"] = "535.161.08";
    if (std::string(host) == "pf-third") v.params["nccl"] = "2.19.3";
    out.push_back(on_host({v}, host).front());
  }
  return out;
}

// host.cpu as host_cpu_test.cpp samples it: quota below the cpuset, governors, steal, too few
// CPUs for the ranks, and another process taking cores.
std::vector<Measurement> host_cpu_inputs() {
  HostCpuSample sample;
  sample.affinity = {0, 1, 2, 3, 4, 5, 6, 7};
  sample.online_cpus = 8;
  sample.window_s = 2;
  auto quiet = host_cpu_measurements(sample, 1);
  sample.cgroup.version = 2;
  sample.cgroup.quota_cores = 2;
  sample.cgroup.cpuset = {0, 1, 2, 3, 4, 5, 6, 7};
  sample.frequencies.cpus_read = 8;
  sample.frequencies.governors = {{"powersave", 6}, {"performance", 2}};
  sample.steal_fraction = 0.25;
  sample.consumers = {{4121, "preprocess.py", 1.2}, {88, "kworker/3:1", 0.1}};
  std::vector<Measurement> out = on_host(host_cpu_measurements(sample, 4), "cpu-busy");
  append(out, on_host(quiet, "cpu-quiet"));
  return out;
}

// host.numa on the two-socket hwloc fixture (numa_binding_test.cpp): a rank on the wrong socket,
// an unbound one, and memory bound off its GPU's node.
std::vector<Measurement> numa_inputs() {
  const HwlocMachine machine = read_hwloc_machine(kFixtures + "/host/hwloc/two-socket-8gpu.xml");
  EXPECT_TRUE(machine.available) << machine.problem;
  std::vector<Measurement> out;
  auto cpus = [](int first, int last) {
    std::vector<int> list;
    for (int i = first; i <= last; ++i) list.push_back(i);
    return list;
  };
  for (int r = 0; r < 8; ++r) {
    RankPlacement placement;
    placement.local_rank = r;
    placement.local_size = 8;
    placement.cpus = r == 5 ? cpus(0, 15) : (r < 4 ? cpus(0, 15) : cpus(16, 31));
    if (r == 6) placement.cpus = cpus(0, 31);
    if (r == 7) {
      placement.mempolicy = "bind";
      placement.mem_nodes = {0};
    }
    for (Measurement& m : numa_measurements(machine, placement, "")) {
      m.host = "numa-node";
      m.rank = r;
      out.push_back(std::move(m));
    }
  }
  return out;
}

// Two hosts' CPUs after the SDC screen: one CPU of sdc-a named, sdc-b clean.
std::vector<Measurement> sdc_inputs() {
  std::vector<Measurement> out;
  auto cpu = [&](const char* host, const char* subject, double wrong) {
    Measurement m = make_measurement(kHostSdcProbe, kSdcMismatchMetric, wrong, "count", subject);
    m.host = host;
    m.params = {{"package", "0"}, {"core", "1"}, {"blocks", "4096"}};
    if (wrong > 0) m.params["mismatch"] = "block 3 (seed 0x1): FP64 FMA chain ...";
    out.push_back(m);
    Measurement seconds = make_measurement(kHostSdcProbe, kSdcSecondsMetric, 5, "s", subject);
    seconds.host = host;
    out.push_back(seconds);
  };
  cpu("sdc-a", "cpu0", 0);
  cpu("sdc-a", "cpu1", 3);
  cpu("sdc-b", "cpu0", 0);
  cpu("sdc-b", "cpu1", 0);
  return out;
}

// Two GPUs after the GPU SDC screens: gpu1's SM 7 and a memory word wrong, gpu0 clean.
std::vector<Measurement> gpu_sdc_inputs() {
  std::vector<Measurement> out;
  for (const char* gpu : {"gpu0", "gpu1"}) {
    const bool wrong = std::string(gpu) == "gpu1";
    Measurement sms =
        make_measurement(kGpuSdcProbe, kSmMismatchMetric, wrong ? 128 : 0, "count", gpu);
    sms.host = "sdc-gpu";
    sms.params = {{"bus_id", wrong ? "0000:19:00.0" : "0000:18:00.0"},
                  {"sms", "132"},
                  {"sms_screened", "132"},
                  {"sms_wrong", wrong ? "7" : ""}};
    out.push_back(sms);
    Measurement words =
        make_measurement(kHbmPatternsProbe, kPatternMismatchMetric, wrong ? 6 : 0, "count", gpu);
    words.host = "sdc-gpu";
    words.params = {{"bus_id", sms.params["bus_id"]}, {"bytes", "1073741824"}};
    out.push_back(words);
  }
  return out;
}

// Four like GPUs' GEMM output hashes on two hosts, one differing.
std::vector<Measurement> gemm_hash_inputs() {
  std::vector<Measurement> out;
  for (int gpu = 0; gpu < 4; ++gpu) {
    Measurement m = make_measurement("gpu.gemm", kGemmHashChangesMetric, 0, "count",
                                     "gpu" + std::to_string(gpu));
    m.host = gpu < 2 ? "hash-a" : "hash-b";
    m.params = {{"model", "NVIDIA H200"},
                {"sms", "132"},
                {"dtype", "bf16"},
                {"m_n_k", "8192"},
                {"driver", "580.65.06"},
                {"cublas_library", "libcublas.so.13"},
                {"output_hash", gpu == 3 ? "b" : "a"}};
    out.push_back(m);
  }
  return out;
}

std::vector<Measurement> mem_bw_inputs() {
  std::vector<Measurement> out;
  auto node = [&](const char* host, const char* subject, const char* metric, double gbps) {
    Measurement m;
    m.probe = kHostMemBwProbe;
    m.metric = metric;
    m.host = host;
    m.subject = subject;
    m.value = gbps;
    m.unit = "GB/s";
    out.push_back(m);
  };
  node("mem-a", "numa0", "triad_bw", 190);
  node("mem-a", "numa1", "triad_bw", 120);
  node("mem-a", "numa2", "triad_bw", 185);
  node("mem-a", "numa3", "triad_bw", 188);
  node("mem-a", "numa0-1", "cross_triad_bw", 60);
  node("mem-a", "node", "node_triad_bw", 500);
  node("mem-b", "numa0", "triad_bw", 120);
  return out;
}

// node.kernel_log of every fixture log (kernel_log_test.cpp), each on its own host.
std::vector<Measurement> kernel_log_inputs() {
  std::vector<Measurement> out;
  const double reference_s = 1709596800 + 86400;  // 2024-03-06T00:00:00Z
  for (const char* name : {"dmesg_T_xid79.log", "dmesg_raw.log", "journal_iso.log",
                           "journal_short.log", "syslog.log", "clean.log"}) {
    KernelLogScan scan{KernelLogWindow{}};
    read_lines(kFixtures + "/host/kernel-log/" + name, "a kernel log",
               [&](std::string_view line, std::size_t number, bool) {
                 scan.add_line(line, name, number, reference_s);
               });
    append(out, on_host(kernel_log_measurements(scan, {}, name), std::string("klog-") + name));
  }
  return out;
}

// fabric.nccl_transport from the NCCL log fixtures (nccl_log_test.cpp), each log on a host whose
// evidence is there too: the healthy sysfs tree's 8 active ports and GPU-to-HCA placement, or a
// node with no port at all.
std::vector<Measurement> nccl_inputs() {
  std::vector<Measurement> out;
  const std::string healthy = kFixtures + "/fabric/sysfs/healthy";
  std::vector<Measurement> evidence = ib_port_measurements(read_ib_ports(healthy));
  HwlocLocality no_hwloc;
  no_hwloc.problem = "a sysfs tree";
  append(evidence, topology_records(gpu_placements(healthy), no_hwloc));
  int i = 0;
  for (const char* name : {"socket_fallback.log", "socket_ib_disabled.log", "ib_gdr_no_module.log",
                           "single_node_p2p_shm.log", "ib_no_gdr.log", "ib_gdr_distance.log"}) {
    const NcclLog log = read_nccl_logs({kFixtures + "/fabric/nccl/" + name});
    const auto records =
        nccl_transport_measurements(log, "fabric.nccl_transport", "coll.all_reduce");
    // The same log on a node with the evidence, and on one without.
    const std::string with = "nccl-" + std::to_string(i) + "-ports";
    append(out, on_host(records, with));
    append(out, on_host(evidence, with));
    append(out, on_host(records, "nccl-" + std::to_string(i) + "-bare"));
    ++i;
  }
  return out;
}

// coll.node_pairs as node_pairs_judge_test.cpp writes it: a slow node confirmed, a slow link, and
// a suspect never measured again; smaller sizes beside the matrix's.
std::vector<Measurement> node_pair_inputs() {
  auto figure = [](const std::string& a, const std::string& b, double value, const char* pass,
                   std::uint64_t size) {
    Measurement m;
    m.probe = kNodePairsProbe;
    m.metric = "exchange_busbw";
    m.unit = "GB/s";
    m.host = std::min(a, b);
    m.peer = std::max(a, b);
    m.subject = link_subject(a, b);
    m.rank = -1;
    m.value = value;
    m.size_bytes = size;
    m.params = {{"pass", pass}, {"operation", "exchange"}};
    return m;
  };
  std::vector<Measurement> out;
  const std::vector<std::string> nodes{"np0", "np1", "np2", "np3", "np4", "np5"};
  for (std::size_t a = 0; a < nodes.size(); ++a) {
    for (std::size_t b = a + 1; b < nodes.size(); ++b) {
      const bool slow_node = nodes[a] == "np2" || nodes[b] == "np2";
      const bool slow_link = nodes[a] == "np4" && nodes[b] == "np5";
      const double value = slow_node ? 0.05 : slow_link ? 0.3 : 1.2;
      out.push_back(figure(nodes[a], nodes[b], value, "first", 4 << 20));
      out.push_back(figure(nodes[a], nodes[b], 0.01, "first", 65536));
      Measurement time = out.back();
      time.metric = "exchange_time_us";
      time.value = 40;
      out.push_back(time);
    }
  }
  out.push_back(figure("np2", "np0", 0.04, "confirm", 4 << 20));
  return out;
}

// coll.node_bisect as its probe writes it (tests/doubles/bisect_records.hpp): node nb5 of 8 slow.
std::vector<Measurement> node_bisect_inputs() {
  std::vector<std::string> nodes;
  for (int i = 0; i < 8; ++i) nodes.push_back("nb" + std::to_string(i));
  return synthetic::bisect_records(nodes, [](const BisectGroup& group) {
    for (const int node : group.members) {
      if (node == 5) return 0.2;
    }
    return 1.0;
  });
}

// Collective times with their samples: one size stalled (max 94 ms at a 10.6 us median), one
// healthy, and a bandwidth and a straggler's held-back time beside them.
std::vector<Measurement> collective_time_inputs() {
  std::vector<Measurement> out;
  for (const auto& [size, max] : {std::pair{65536ull, 94000.0}, std::pair{1048576ull, 14.0}}) {
    Measurement m;
    m.probe = "coll.all_reduce";
    m.metric = "time_us";
    m.unit = "us";
    m.host = "cs0,cs1";
    m.subject = "world";
    m.rank = -1;
    m.size_bytes = size;
    m.value = 10.6;
    SampleStats stats;
    stats.count = 20;
    stats.median = 10.6;
    stats.p99 = max * 0.8;
    stats.max = max;
    m.stats = stats;
    m.params = {{"placement", "out"}, {"max_sample", "7 of 20"}};
    out.push_back(m);
    m.metric = "busbw";
    m.unit = "GB/s";
    m.stats.reset();
    out.push_back(m);
    // Rank 1 held the others back 10 ms a sample over 20 samples of 1 ms: a straggler.
    m.metric = "held_back_us";
    m.unit = "us";
    m.value = 10000;
    m.by_rank = {{0, "cs0", 0}, {1, "cs1", 10000}};
    m.params = {{"placement", "out"},      {"samples", "20"},          {"timed_us", "20000"},
                {"last_arrivals", "0,20"}, {"lateness_us", "0,10000"}, {"off_cpu_us", "0,0"}};
    out.push_back(m);
    m.by_rank.clear();
  }
  return out;
}

// The sysfs trees of fabric_judge_test.cpp: PCIe links, ports, and counters that grew.
std::vector<Measurement> sysfs_inputs() {
  std::vector<Measurement> out;
  for (const char* name : {"healthy", "degraded"}) {
    const std::string tree = kFixtures + "/fabric/sysfs/" + name;
    auto records = pcie_link_measurements(read_pcie_links(tree), false);
    append(records, ib_port_measurements(read_ib_ports(tree)));
    append(out, on_host(records, std::string("sysfs-") + name));
  }
  const std::string fixtures = kFixtures + "/fabric/sysfs/";
  auto grew = ib_counter_measurements(read_ib_counters(fixtures + "counters-before"),
                                      read_ib_counters(fixtures + "counters-after"), 60);
  append(out, on_host(grew, "sysfs-degraded"));
  append(out, on_host(ib_port_measurements({}), "sysfs-no-rdma"));  // WAIVED: no RDMA device
  return out;
}

// gpu.gemm's burn (throttle_test.cpp's figures) and error counters that grew during a probe.
std::vector<Measurement> gpu_counter_inputs() {
  std::vector<Measurement> out;
  ThrottleSummary hot;
  hot.samples = 300;
  hot.duration_s = 30;
  hot.reason_fraction = {{"thermal-sw", 0.33}, {"power-cap", 0.6}};
  hot.thermal_fraction = 0.33;
  hot.hw_slowdown_fraction = 0.02;
  hot.clock_start_mhz = 1980;
  hot.clock_end_mhz = 1605;
  hot.temperature_max_c = 89;
  ThrottleSummary steady;
  steady.samples = 300;
  steady.duration_s = 30;
  steady.clock_start_mhz = steady.clock_end_mhz = 1980;
  for (int g = 0; g < 4; ++g) {
    const GpuLabel label{g, "0000:1" + std::to_string(g) + ":00.0", "NVIDIA H100"};
    append(out,
           on_host(throttle_measurements(g == 1 ? hot : steady, label, "gpu.gemm"), "burn-node"));
  }
  const CounterReadings before{{"gpu0", {{"nvlink2.crc_flit", 10}, {"pcie_replay", 0}}},
                               {"gpu1", {{"nvlink0.crc_flit", 5}}}};
  const CounterReadings after{{"gpu0", {{"nvlink2.crc_flit", 42}, {"pcie_replay", 3}}},
                              {"gpu1", {{"nvlink0.crc_flit", 5}}}};
  for (Measurement& m : gpu_error_counter_growth(before, after, 30)) {
    m.params["during"] = "gpu.gemm";
    m.host = "burn-node";
    out.push_back(std::move(m));
  }
  return out;
}

// --- the comparison --------------------------------------------------------------------------

std::vector<Measurement> declared_by(const Judge& judge, const std::vector<Measurement>& all) {
  std::vector<Measurement> out;
  for (const Measurement& m : all) {
    if (reads_figure(judge, m.probe, m.metric)) out.push_back(m);
  }
  return out;
}

std::string text(const std::vector<Finding>& findings) {
  std::string out;
  for (const Finding& f : findings) {
    out += std::string(to_string(f.severity)) + " | " + f.probe + " | " + f.metric + " | " +
           f.subject + " | " + f.host + " | " + f.message + " | " + f.evidence + "\n";
  }
  return out;
}

Profile profile_with_node_table() {
  Profile profile;
  profile.name = "node-table";
  profile.node = {{"gpu_pcie", "5x16"},    {"hca_pcie", "5x16"},  {"ib_ports", "8"},
                  {"ib_rate_gbps", "400"}, {"gpu_nvlinks", "18"}, {"nccl_gdr", "true"},
                  {"pair_min_gap", "0.3"}, {"gpus", "8"},           {"nvme", "2"}};
  long line = 1;
  for (const auto& [key, value] : profile.node) profile.node_lines[key] = ++line;
  return profile;
}

// Findings per judge over everything compared so far (a judge that finds nothing anywhere would
// make its comparison say nothing).
using Tally = std::map<std::string, std::size_t>;

// Each judge given all of `all` and given only what it declares: the same findings, in order.
void expect_same_findings(const std::string& what, const std::vector<Measurement>& all,
                          Tally& tally) {
  for (const Profile& profile : {Profile{}, profile_with_node_table()}) {
    for (const Judge& judge : registry().judges()) {
      if (reads_everything(judge)) continue;  // given all, nothing to compare
      const std::vector<Finding> from_all = judge.judge(all, profile);
      const std::vector<Finding> from_declared = judge.judge(declared_by(judge, all), profile);
      EXPECT_EQ(text(from_declared), text(from_all))
          << "judge \"" << judge.name << "\" on " << what << " with profile "
          << (profile.name.empty() ? "(none)" : profile.name)
          << ": given only what it declares, it finds something else";
      tally[judge.name] += from_all.size();
    }
  }
}

TEST(JudgeReads, EveryJudgeFindsTheSameFromWhatItDeclaresAsFromEverything) {
  TempDir dir;
  synthetic::FleetSpec spec;
  spec.nodes = 16;  // every fault on its own node
  spec.collective_sizes = 8;
  const synthetic::Fleet fleet = synthetic::write_fleet(dir.path() / "fleet", spec);
  ASSERT_EQ(fleet.run_dirs.size(), 16u);
  // Each node as `evaluate` reads it back (read_run_dir, FleetStore::materialize).
  std::vector<std::vector<Measurement>> nodes;
  for (const fs::path& run : fleet.run_dirs) {
    FleetStore store;
    read_run_dir(run, store);
    std::vector<Measurement> measurements;
    for (const FigureRow& row : store.rows) measurements.push_back(store.materialize(row));
    ASSERT_FALSE(measurements.empty()) << run;
    nodes.push_back(std::move(measurements));
  }
  Tally tally;
  std::vector<Measurement> fleet_all;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    expect_same_findings("synthetic node " + std::to_string(i), nodes[i], tally);
    append(fleet_all, nodes[i]);
  }
  expect_same_findings("the synthetic fleet at once", fleet_all, tally);

  // The family judges' own inputs, each among a healthy synthetic node's records, then all
  // together with the faulty fleet.
  const std::vector<std::pair<std::string, std::vector<Measurement>>> families = {
      {"gpu fixtures",
       [] {
         std::vector<Measurement> out;
         for (const char* name : {"healthy.jsonl", "slow_gpu.jsonl", "hot_throttled.jsonl",
                                  "pcie_gen4_under_load.jsonl", "nvlink_inactive.jsonl",
                                  "foreign_memory.jsonl", "row_remap_pending.jsonl"}) {
           append(out, on_host(gpu_set(name), std::string("gpu-") + name));
         }
         return out;
       }()},
      {"gpu.gemm throttling and error counters", gpu_counter_inputs()},
      {"pre-flight and versions", preflight_inputs()},
      {"host.cpu", host_cpu_inputs()},
      {"host.numa", numa_inputs()},
      {"host.mem_bw", mem_bw_inputs()},
      {"host.sdc", sdc_inputs()},
      {"gpu.sdc and gpu.hbm_patterns", gpu_sdc_inputs()},
      {"gpu.gemm output hashes", gemm_hash_inputs()},
      {"kernel logs", kernel_log_inputs()},
      {"NCCL logs with their nodes' evidence", nccl_inputs()},
      {"node pairs", node_pair_inputs()},
      {"node bisection", node_bisect_inputs()},
      {"collective times", collective_time_inputs()},
      {"sysfs trees", sysfs_inputs()},
  };
  std::vector<Measurement> everything = fleet_all;
  for (const auto& [what, inputs] : families) {
    ASSERT_FALSE(inputs.empty()) << what;
    std::vector<Measurement> among = nodes[1];  // a healthy node: foreign records
    append(among, inputs);
    expect_same_findings(what, among, tally);
    append(everything, inputs);
  }
  expect_same_findings("every input at once", everything, tally);

  for (const Judge& judge : registry().judges()) {
    if (reads_everything(judge)) continue;
    EXPECT_GT(tally[judge.name], 0u)
        << "judge \"" << judge.name << "\" found nothing in any input: its comparison is empty";
  }
}

}  // namespace
}  // namespace fabcheck
