// Synthetic sweeps: per-node run directories in the files real runs write, healthy figures with 1%
// noise, faults at known places.
#include "tests/synthetic/synthetic_fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "results/record_json.hpp"

namespace fabcheck::synthetic {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kGpus = 8;
constexpr std::size_t kHcas = 8;
constexpr const char* kModel = "NVIDIA H100 80GB HBM3";
constexpr const char* kTime = "2026-11-30T02:00:00Z";

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) from the given parts.
double uniform(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0) {
  return static_cast<double>(mix(mix(mix(a) ^ b) ^ c) >> 11) * 0x1.0p-53;
}

std::string gpu_bdf(std::size_t gpu) { return fmt::format("0000:{:02x}:00.0", 0x18 + 0x20 * gpu); }
std::string hca_bdf(std::size_t hca) { return fmt::format("0000:{:02x}:00.0", 0x19 + 0x20 * hca); }
std::string upstream_of(const std::string& bdf) {
  return fmt::format("0000:{}:00.0",
                     fmt::format("{:02x}", std::stoi(bdf.substr(5, 2), nullptr, 16) - 1));
}

// The RDMA servers node `index` measures (its partners are these and the nodes measuring it).
std::array<std::size_t, 2> rdma_servers(std::size_t index, std::size_t nodes) {
  return {(index + 1) % nodes, (index + nodes / 2) % nodes};
}

bool rdma_partners(std::size_t a, std::size_t b, std::size_t nodes) {
  const auto of_a = rdma_servers(a, nodes);
  const auto of_b = rdma_servers(b, nodes);
  return std::find(of_a.begin(), of_a.end(), b) != of_a.end() ||
         std::find(of_b.begin(), of_b.end(), a) != of_b.end();
}

// Where the faults are in a fleet of `nodes` (synthetic_fleet.hpp: at sixteenths, apart).
struct Placement {
  std::size_t slow_gpu_node, downtrained_node, half_rate_node, socket_node, slow_pair_client,
      slow_pair_server, regression_node;
  static constexpr std::size_t slow_gpu = 5, downtrained_gpu = 2, half_rate_hca = 3;
  explicit Placement(std::size_t n)
      : slow_gpu_node(4 * n / 16),
        downtrained_node(6 * n / 16),
        half_rate_node(8 * n / 16),
        socket_node(13 * n / 16),
        slow_pair_client(2 * n / 16),
        slow_pair_server((2 * n / 16 + n / 2) % n),
        regression_node(15 * n / 16) {}

  // Throws std::invalid_argument unless every fault has its own node and no fault node is an RDMA
  // partner of another (but the slow pair's two of each other).
  void check(std::size_t n) const {
    const std::size_t all[] = {slow_pair_client, slow_pair_server, slow_gpu_node,  downtrained_node,
                               half_rate_node,   socket_node,      regression_node};
    for (std::size_t i = 0; i < std::size(all); ++i) {
      for (std::size_t j = i + 1; j < std::size(all); ++j) {
        if (i == 0 && j == 1) continue;
        if (all[i] == all[j] || rdma_partners(all[i], all[j], n)) {
          throw std::invalid_argument(fmt::format(
              "a synthetic fleet of {} nodes puts two faults on node {} and {} (the same or RDMA "
              "partners)",
              n, all[i], all[j]));
        }
      }
    }
    if (!rdma_partners(slow_pair_client, slow_pair_server, n)) {
      throw std::invalid_argument("the slow pair's nodes do not measure each other");
    }
  }
};

// One JSON line of a measurement, byte for byte as a run writes it (record_json.hpp's
// to_jsonl_line: keys sorted, compact, "by_rank" included): the figures are formatted here, then
// the record goes through the run's own reader and writer, so a sweep's files are what real runs
// leave.
class RecordWriter {
 public:
  struct Record {
    const char* probe;
    const std::string& metric;
    double value;
    const char* unit;
    const std::string& subject;
    const std::string& peer;
    std::int64_t size;
    const std::string& params;
    bool stats;
    const std::string& message;
  };

  RecordWriter(std::string host, std::uint64_t seed) : host_(std::move(host)), seed_(seed) {}

  // 1 +- 1% of noise, deterministic per record.
  double noise() { return 1.0 + 0.02 * (uniform(seed_, ++counter_) - 0.5); }

  void add(const char* probe, const std::string& metric, double value, const char* unit,
           const std::string& subject = "world", const std::string& peer = "",
           std::int64_t size = -1, const std::string& params = "", bool stats = false,
           const std::string& message = "") {
    const Record r{probe, metric, value, unit, subject, peer, size, params, stats, message};
    scratch_.clear();
    auto out = std::back_inserter(scratch_);
    fmt::format_to(out,
                   "{{\"schema_version\": 1, \"kind\": \"measurement\", \"probe\": \"{}\", "
                   "\"metric\": \"{}\", \"value\": {:.6g}, \"unit\": \"{}\", \"host\": \"{}\", "
                   "\"rank\": 0, \"subject\": \"{}\", \"peer\": \"{}\", \"size_bytes\": ",
                   r.probe, r.metric, r.value, r.unit, host_, escape(r.subject), escape(r.peer));
    if (r.size < 0) {
      fmt::format_to(out, "null");
    } else {
      fmt::format_to(out, "{}", r.size);
    }
    fmt::format_to(out, ", \"params\": {{{}}}, \"stats\": ", r.params);
    if (r.stats) {
      fmt::format_to(out,
                     "{{\"count\": 20, \"min\": {:.6g}, \"median\": {:.6g}, \"max\": {:.6g}, "
                     "\"p99\": {:.6g}, \"mean\": {:.6g}, \"cv\": 0.004}}",
                     r.value * 0.99, r.value, r.value * 1.01, r.value * 1.008, r.value);
    } else {
      fmt::format_to(out, "null");
    }
    fmt::format_to(out, ", \"status\": \"ok\", \"message\": \"{}\", \"time_utc\": \"{}\"}}",
                   escape(r.message), kTime);
    text_ +=
        to_jsonl_line(to_json(measurement_from_json(nlohmann::json::parse(scratch_), "synthetic")));
    ++count_;
  }

  static std::string escape(const std::string& text) {
    std::string out;
    for (char c : text) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (c == '\n') {
        out += "\\n";
      } else {
        out += c;
      }
    }
    return out;
  }

  const std::string& text() const { return text_; }
  std::size_t count() const { return count_; }

 private:
  std::string host_;
  std::uint64_t seed_;
  std::uint64_t counter_ = 0;
  std::string scratch_;  // the record as formatted here, before the run's writer writes it
  std::string text_;
  std::size_t count_ = 0;
};

void write_file(const fs::path& path, const std::string& text) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) throw std::runtime_error("cannot create " + path.string());
  const bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (std::fclose(file) != 0 || !ok) throw std::runtime_error("cannot write " + path.string());
}

std::string gpu_params(std::size_t gpu) {
  return fmt::format("\"bus_id\": \"{}\", \"model\": \"{}\"", gpu_bdf(gpu), kModel);
}

struct NodeWriter {
  const FleetSpec& spec;
  const Placement& place;
  std::size_t index;
  int night;
  RecordWriter w;
  bool faulty(std::size_t node) const { return spec.faults && night == 0 && index == node; }

  void collectives() {
    struct Coll {
      const char* probe;
      double peak;
      double factor;  // busbw / algbw for 8 ranks
    };
    for (const Coll& c :
         {Coll{"coll.all_reduce", 480, 1.75}, Coll{"coll.all_gather", 390, 0.875},
          Coll{"coll.reduce_scatter", 390, 0.875}, Coll{"coll.alltoall", 360, 0.875}}) {
      for (std::size_t k = 0; k < spec.collective_sizes; ++k) {
        const double size = 1024.0 * std::pow(2.0, static_cast<double>(k));
        const double busbw = c.peak * size / (size + 48e6) * w.noise();
        const double algbw = busbw / c.factor;
        const auto bytes = static_cast<std::int64_t>(size);
        const std::string params =
            "\"backend\": \"nccl\", \"placement\": \"out\", \"ranks\": \"8\", \"type\": \"float\"";
        w.add(c.probe, "busbw", busbw, "GB/s", "world", "", bytes, params, true);
        w.add(c.probe, "algbw", algbw, "GB/s", "world", "", bytes, params, true);
        w.add(c.probe, "time_us", size / (algbw * 1e3), "us", "world", "", bytes, params, true);
        w.add(c.probe, "wrong_elements", 0, "count", "world", "", bytes, params);
      }
    }
  }

  void gpu_probes() {
    const std::int64_t copy_sizes[] = {32ll << 20, 256ll << 20, 1ll << 30, 4ll << 30};
    for (std::size_t g = 0; g < kGpus; ++g) {
      const std::string gpu = fmt::format("gpu{}", g);
      const bool narrow = faulty(place.downtrained_node) && g == Placement::downtrained_gpu;
      for (const char* probe : {"gpu.h2d", "gpu.d2h"}) {
        for (std::int64_t size : copy_sizes) {
          const double bw = 52.0 * (narrow ? 0.5 : 1.0) * w.noise();
          w.add(probe, "bw", bw, "GB/s", gpu, "", size, gpu_params(g), true);
          w.add(probe, "plain_memcpy_bw", bw * 0.9, "GB/s", gpu, "", size, gpu_params(g), true);
        }
      }
      for (std::size_t other = 0; other < kGpus; ++other) {
        if (other == g) continue;
        const std::string params =
            gpu_params(g) + fmt::format(", \"peer_bus_id\": \"{}\"", gpu_bdf(other));
        const std::string peer = fmt::format("gpu{}", other);
        w.add("gpu.p2p", "ce_bw", 390 * w.noise(), "GB/s", gpu, peer, 1ll << 30, params, true);
        w.add("gpu.p2p", "sm_write_bw", 380 * w.noise(), "GB/s", gpu, peer, 1ll << 30, params,
              true);
      }
      w.add("gpu.hbm_bw", "copy_bw", 2950 * w.noise(), "GB/s", gpu, "", 4ll << 30, gpu_params(g),
            true);
      w.add("gpu.hbm_bw", "triad_bw", 3050 * w.noise(), "GB/s", gpu, "", 4ll << 30, gpu_params(g),
            true);
      const double slow = faulty(place.slow_gpu_node) && g == Placement::slow_gpu ? 0.88 : 1.0;
      w.add("gpu.gemm", "bf16_tflops", 660 * slow * w.noise(), "TFLOP/s", gpu, "", -1,
            gpu_params(g));
      w.add("gpu.gemm", "tf32_tflops", 330 * slow * w.noise(), "TFLOP/s", gpu, "", -1,
            gpu_params(g));
      w.add("gpu.launch_latency", "launch_us", 2.5 * w.noise(), "us", gpu, "", -1, gpu_params(g));
      w.add("gpu.launch_latency", "launch_sync_us", 5.0 * w.noise(), "us", gpu, "", -1,
            gpu_params(g));
    }
  }

  void pcie_links() {
    auto device = [&](const std::string& bdf, const char* kind, const char* vendor, const char* id,
                      int gen, int width, int max_gen, int max_width) {
      const std::string current = fmt::format("Gen{} x{}", gen, width);
      const std::string max = fmt::format("Gen{} x{}", max_gen, max_width);
      const std::string params = fmt::format(
          "\"current\": \"{}\", \"device\": \"{}\", \"kind\": \"{}\", \"load\": \"loaded\", "
          "\"max\": \"{}\", \"max_gen\": \"{}\", \"max_width\": \"{}\", \"upstream_port\": "
          "\"{}\", \"vendor\": \"{}\"",
          current, id, kind, max, max_gen, max_width, upstream_of(bdf), vendor);
      const std::string where = fmt::format("{} ({}, upstream port {}) at {} (max {})", bdf, kind,
                                            upstream_of(bdf), current, max);
      w.add("fabric.pcie_links", fmt::format("{}_link_gen", kind), double(gen), "count", bdf, "",
            -1, params);
      w.add("fabric.pcie_links", fmt::format("{}_link_width", kind), double(width), "count", bdf,
            "", -1, params);
      w.add("fabric.pcie_links", "link_gen_deficit", double(max_gen - gen), "count", bdf, "", -1,
            params, false, gen < max_gen ? where : "");
      w.add("fabric.pcie_links", "link_width_deficit", double(max_width - width), "count", bdf, "",
            -1, params, false, width < max_width ? where : "");
      for (const char* aer : {"aer_correctable", "aer_nonfatal", "aer_fatal"}) {
        w.add("fabric.pcie_links", aer, 0, "count", bdf, "", -1, params);
      }
    };
    for (std::size_t g = 0; g < kGpus; ++g) {
      const bool narrow = faulty(place.downtrained_node) && g == Placement::downtrained_gpu;
      device(gpu_bdf(g), "gpu", "0x10de", "0x2330", 5, narrow ? 8 : 16, 5, 16);
    }
    for (std::size_t h = 0; h < kHcas; ++h)
      device(hca_bdf(h), "hca", "0x15b3", "0x1021", 5, 16, 5, 16);
    for (const char* nvme : {"0000:0a:00.0", "0000:0b:00.0"}) {
      device(nvme, "nvme", "0x144d", "0xa80a", 4, 4, 4, 4);
    }
  }

  void ib_ports() {
    for (std::size_t h = 0; h < kHcas; ++h) {
      const bool half = faulty(place.half_rate_node) && h == Placement::half_rate_hca;
      const std::string port = fmt::format("mlx5_{}/1", h);
      const std::string rate = half ? "200 Gb/sec (4X HDR)" : "400 Gb/sec (4X NDR)";
      const std::string params = fmt::format(
          "\"hca_model\": \"15b3:1021\", \"link_layer\": \"InfiniBand\", \"pci_bdf\": \"{}\", "
          "\"phys_state\": \"LinkUp\", \"rate\": \"{}\", \"state\": \"ACTIVE\"",
          hca_bdf(h), rate);
      w.add("fabric.ib_ports", "port_active", 1, "count", port, "", -1, params);
      w.add("fabric.ib_ports", "port_rate", half ? 200.0 : 400.0, "Gb/s", port, "", -1, params,
            false, fmt::format("{} ({}) rate {}", port, hca_bdf(h), rate));
      w.add("fabric.ib_ports", "saturated_counters", 0, "count", port, "", -1, params);
    }
    w.add("fabric.ib_ports", "active_ports", double(kHcas), "count", "node", "", -1,
          fmt::format("\"ports\": \"{}\"", kHcas));
  }

  void topology() {
    for (std::size_t g = 0; g < kGpus; ++g) {
      const std::string params = fmt::format(
          "\"gpu_numa_node\": \"{0}\", \"hca_numa_node\": \"{0}\", \"nearest_hca\": \"mlx5_{1}\"",
          g / 4, g);
      const std::string peer = fmt::format("mlx5_{} ({})", g, hca_bdf(g));
      w.add("fabric.topology", "nearest_hca_hops", 4, "count", gpu_bdf(g), peer, -1, params);
      w.add("fabric.topology", "numa_mismatch", 0, "count", gpu_bdf(g), peer, -1, params);
    }
  }

  void nccl_transport(const std::string& host, const std::string& partner) {
    const bool sockets = faulty(place.socket_node);
    const std::string log = fmt::format("nccl-logs/coll.all_reduce.{}.4401.log", host);
    std::string params = fmt::format(
        "\"devices\": \"{}\", \"hosts\": \"{},{}\", \"intra_node_non_p2p_where_p2p\": \"0\", "
        "\"multi_node\": \"1\", \"network\": \"{}\"",
        sockets ? "eth0:10.0.0.1<0>" : "mlx5_0:1/IB,mlx5_1:1/IB", host, partner,
        sockets ? "Socket" : "IB");
    if (sockets) {
      params += fmt::format(
          ", \"ib_searched\": \"{0}:3: {1}:4401:4412 [0] NCCL INFO NET/IB : No device found.\", "
          "\"socket_lines\": \"{0}:5: {1}:4401:4412 [0] NCCL INFO Using network Socket\\n{0}:7: "
          "{1}:4401:4412 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via NET/Socket/0\"",
          log, host);
    } else {
      params += fmt::format(
          ", \"ib_searched\": \"{0}:2: {1}:4401:4401 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB "
          "[1]mlx5_1:1/IB; OOB ib0:192.168.1.1<0>\"",
          log, host);
    }
    const double ib = sockets ? 0 : 16;
    const double socket = sockets ? 16 : 0;
    struct Count {
      const char* metric;
      double value;
    };
    for (const Count& c :
         {Count{"socket_channels", socket}, Count{"inter_node_socket_channels", socket},
          Count{"ib_channels", ib}, Count{"gdr_channels", ib}, Count{"ib_channels_without_gdr", 0},
          Count{"p2p_channels", 112}, Count{"shm_channels", 0},
          Count{"intra_node_non_p2p_channels", 0}, Count{"unrecognised_lines", 0}}) {
      w.add("fabric.nccl_transport", c.metric, c.value, "count", "coll.all_reduce", "", -1, params);
    }
  }

  void rdma(std::size_t nodes) {
    for (std::size_t server : rdma_servers(index, nodes)) {
      // A slow path is slow both ways (the server measures the client too: it is n/2 away).
      const bool slow_pair =
          spec.faults && night == 0 &&
          ((index == place.slow_pair_client && server == place.slow_pair_server) ||
           (index == place.slow_pair_server && server == place.slow_pair_client));
      for (std::size_t h = 0; h < kHcas; ++h) {
        const bool half = spec.faults && night == 0 && h == Placement::half_rate_hca &&
                          (index == place.half_rate_node || server == place.half_rate_node);
        const double value = 395 * (slow_pair ? 0.6 : 1.0) * (half ? 0.5 : 1.0) * w.noise();
        const std::string params = fmt::format(
            "\"memory\": \"cuda:{}\", \"msg_rate_mpps\": \"0.006\", \"pinning\": \"48 HCA-local "
            "CPUs\", \"tcp_port\": \"{}\"",
            gpu_bdf(h), 18515 + h);
        w.add("fabric.rdma_bw", "write_bw", value, "Gb/s", fmt::format("mlx5_{}", h),
              fmt::format("{}/mlx5_{}", node_name(server), h), 8 << 20, params);
      }
    }
  }

  void storage() {
    // Each node's drives have their own speed (+-12 %), the same night after night.
    double factor = 0.88 + 0.24 * uniform(0x5708a9e, index);
    if (spec.faults && index == place.regression_node) factor = night == 0 ? 1.08 * 0.78 : 1.08;
    const std::string seq =
        "\"block_size\": \"1048576\", \"direct\": \"1\", \"engine\": \"io_uring\", "
        "\"file_size\": \"8589934592\", \"queue_depth\": \"32\"";
    const std::string rand =
        "\"block_size\": \"4096\", \"direct\": \"1\", \"engine\": \"io_uring\", \"file_size\": "
        "\"8589934592\"";
    w.add("storage.seq_write", "bw", 5.2 * factor * w.noise(), "GB/s", "/mnt/nvme", "", 1 << 20,
          seq);
    w.add("storage.seq_write", "wrong_elements", 0, "count", "/mnt/nvme", "", 1 << 20, seq);
    w.add("storage.seq_read", "bw", 6.8 * factor * w.noise(), "GB/s", "/mnt/nvme", "", 1 << 20,
          seq);
    w.add("storage.seq_read", "wrong_elements", 0, "count", "/mnt/nvme", "", 1 << 20, seq);
    w.add("storage.rand_read", "iops_qd1", 14000 * factor * w.noise(), "IOPS", "/mnt/nvme", "",
          4096, rand);
    w.add("storage.rand_read", "iops_qd32", 800000 * factor * w.noise(), "IOPS", "/mnt/nvme", "",
          4096, rand);
    w.add("storage.rand_read", "lat_p50_us_qd1", 70 / factor * w.noise(), "us", "/mnt/nvme", "",
          4096, rand);
    w.add("storage.rand_read", "lat_p99_us_qd1", 95 / factor * w.noise(), "us", "/mnt/nvme", "",
          4096, rand);
  }
};

// A run's start: night k is k days before 2026-11-30 at 02:MM, MM from the seed, so that no two
// fleets written with another night or seed claim to be the same runs (a run is known by its start
// and host; `compare` never takes a run as its own reference).
std::string started_of(const FleetSpec& spec, int night) {
  return fmt::format("2026-11-{:02d}T02:{:02d}:00Z", 30 - night, spec.seed % 60);
}

std::string summary_json(const std::string& host, const std::string& dir,
                         const std::string& started) {
  return fmt::format(
      R"json({{
  "schema_version": 1,
  "kind": "summary",
  "fabcheck_version": "0.1.0",
  "verdict": "pass",
  "exit_code": 0,
  "counts": {{"pass": 0, "warn": 0, "fail": 0, "waived": 0, "error": 0}},
  "probes": {{"run": [], "waived": [], "errored": []}},
  "hosts": ["{0}"],
  "ranks": 8,
  "command_line": "fabcheck run --plan acceptance (synthetic)",
  "profile": {{"name": "h100-sxm-8", "path": ""}},
  "started_utc": "{2}",
  "finished_utc": "{2}",
  "incomplete_reason": null,
  "versions": {{"fabcheck": "0.1.0", "mpi": "", "cuda": "", "nccl": "", "compiler": ""}},
  "environment": {{}},
  "run_dir": "{1}"
}}
)json",
      host, dir, started);
}

}  // namespace

const char* to_string(FaultKind kind) {
  switch (kind) {
    case FaultKind::slow_gpu:
      return "slow GPU";
    case FaultKind::downtrained_link:
      return "downtrained PCIe link";
    case FaultKind::half_rate_port:
      return "half-rate IB port";
    case FaultKind::socket_fallback:
      return "NCCL socket fallback";
    case FaultKind::slow_node_pair:
      return "slow node pair";
    case FaultKind::history_regression:
      return "regression against history";
  }
  return "?";
}

std::string node_name(std::size_t index) { return fmt::format("node{:05d}", index); }

Fleet write_fleet(const fs::path& dir, const FleetSpec& spec, int night) {
  if (spec.faults && spec.nodes < 16) {
    throw std::invalid_argument("a synthetic fleet with faults needs at least 16 nodes");
  }
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw std::runtime_error("cannot create " + dir.string() + ": " + error.message());
  const Placement place(spec.nodes);
  if (spec.faults) place.check(spec.nodes);
  Fleet fleet;
  for (std::size_t i = 0; i < spec.nodes; ++i) {
    const std::string host = node_name(i);
    const fs::path run = dir / host;
    fs::create_directories(run);
    NodeWriter node{spec, place, i, night,
                    RecordWriter(host, mix(spec.seed) ^ mix(i * 1315423911u +
                                                            static_cast<std::uint64_t>(night)))};
    node.collectives();
    node.gpu_probes();
    node.pcie_links();
    node.ib_ports();
    node.topology();
    node.nccl_transport(host, node_name((i + 1) % spec.nodes));
    node.rdma(spec.nodes);
    node.storage();
    write_file(run / "measurements.jsonl", node.w.text());
    write_file(run / "findings.jsonl", "");
    write_file(run / "summary.json", summary_json(host, run.string(), started_of(spec, night)));
    fleet.run_dirs.push_back(run);
    fleet.measurements += node.w.count();
    fleet.bytes += node.w.text().size();
  }
  if (!spec.faults || night != 0) return fleet;
  auto name = [](std::size_t i) { return node_name(i); };
  // A figure measured from one node's HCA to another's below its tier: a finding about that link.
  auto rail = [&](std::size_t from, std::size_t to, std::size_t hca) {
    const std::string from_hca = fmt::format("{}/mlx5_{}", name(from), hca);
    const std::string to_hca = fmt::format("{}/mlx5_{}", name(to), hca);
    return FaultPlace{name(from), from_hca + "--" + to_hca};
  };
  fleet.faults.push_back(
      {FaultKind::slow_gpu, name(place.slow_gpu_node), {{name(place.slow_gpu_node), "gpu5"}}});
  fleet.faults.push_back({FaultKind::downtrained_link,
                          name(place.downtrained_node),
                          {{name(place.downtrained_node), "gpu2"},
                           {name(place.downtrained_node), gpu_bdf(Placement::downtrained_gpu)}}});
  // The half-rate port: on its node (the port, and the HCA slow with every partner); the rails
  // through it, whichever end measured, are links.
  const std::size_t port = place.half_rate_node;
  Fault half{
      FaultKind::half_rate_port, name(port), {{name(port), "mlx5_3/1"}, {name(port), "mlx5_3"}}};
  for (std::size_t other = 0; other < spec.nodes; ++other) {
    const auto servers = rdma_servers(other, spec.nodes);
    if (other == port) {
      for (std::size_t server : servers)
        half.places.push_back(rail(port, server, Placement::half_rate_hca));
    } else if (std::find(servers.begin(), servers.end(), port) != servers.end()) {
      half.places.push_back(rail(other, port, Placement::half_rate_hca));
    }
  }
  fleet.faults.push_back(half);
  fleet.faults.push_back({FaultKind::socket_fallback,
                          name(place.socket_node),
                          {{name(place.socket_node), "coll.all_reduce"}}});
  // The slow pair: the path between them, and each rail measured either way.
  const std::string a = std::min(name(place.slow_pair_client), name(place.slow_pair_server));
  const std::string b = std::max(name(place.slow_pair_client), name(place.slow_pair_server));
  Fault pair{FaultKind::slow_node_pair, name(place.slow_pair_client), {{a, a + "--" + b}}};
  pair.link = true;
  for (std::size_t h = 0; h < kHcas; ++h) {
    pair.places.push_back(rail(place.slow_pair_client, place.slow_pair_server, h));
    pair.places.push_back(rail(place.slow_pair_server, place.slow_pair_client, h));
  }
  fleet.faults.push_back(pair);
  fleet.faults.push_back({FaultKind::history_regression,
                          name(place.regression_node),
                          {{name(place.regression_node), "/mnt/nvme"}},
                          true});
  return fleet;
}

}  // namespace fabcheck::synthetic
