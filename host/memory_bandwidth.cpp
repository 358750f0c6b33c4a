// STREAM triad over pinned threads and bound memory; NUMA nodes from sysfs; the per-node judgement.
#include "host/memory_bandwidth.hpp"

#include <bit>

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "bench/sys/cpu_list.hpp"
#include "bench/sys/sysfs_file.hpp"
#include "results/evaluator.hpp"

namespace fabcheck {
namespace {

constexpr int kMpolBind = 2;
constexpr double kScalar = 3.0;

// Anonymous memory, bound to `node` when one is given, released when done.
class Arrays {
 public:
  Arrays(std::size_t bytes, int node) : bytes_(bytes) {
    memory_ = mmap(nullptr, 3 * bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory_ == MAP_FAILED)
      throw std::runtime_error("host.mem_bw: cannot map 3 x " + std::to_string(bytes_) + " bytes");
    if (node >= 0) {
      unsigned long mask[16] = {};
      mask[node / 64] = 1UL << (node % 64);
      if (syscall(SYS_mbind, memory_, 3 * bytes_, kMpolBind, mask, sizeof mask * 8, 0) != 0) {
        munmap(memory_, 3 * bytes_);
        throw std::runtime_error("host.mem_bw: cannot bind memory to NUMA node " +
                                 std::to_string(node));
      }
    }
  }
  ~Arrays() { munmap(memory_, 3 * bytes_); }
  Arrays(const Arrays&) = delete;
  Arrays& operator=(const Arrays&) = delete;
  double* array(int which) const {
    return reinterpret_cast<double*>(static_cast<char*>(memory_) + which * bytes_);
  }

 private:
  std::size_t bytes_;
  void* memory_;
};

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

}  // namespace

std::size_t default_stream_array_bytes(double available_bytes) {
  constexpr std::size_t kMin = std::size_t{64} << 20;
  constexpr std::size_t kMax = std::size_t{1} << 30;
  const double share = available_bytes / 32;
  if (!(share > static_cast<double>(kMin))) return kMin;
  if (share >= static_cast<double>(kMax)) return kMax;
  return std::bit_floor(static_cast<std::size_t>(share));
}

double stream_triad_gbps(const TriadRun& run) {
  if (run.cpus.empty()) throw std::runtime_error("host.mem_bw: no CPUs to run on");
  const std::size_t threads = run.cpus.size();
  const std::size_t per_thread =
      std::max<std::size_t>(1, run.bytes_per_array / sizeof(double) / threads);
  const std::size_t elements = per_thread * threads;
  Arrays arrays(elements * sizeof(double), run.memory_node);
  double* a = arrays.array(0);
  double* b = arrays.array(1);
  double* c = arrays.array(2);
  const int repeats = std::max(1, run.repeats);
  std::vector<double> seconds(static_cast<std::size_t>(repeats), 0);
  std::barrier sync(static_cast<std::ptrdiff_t>(threads));
  std::vector<std::thread> workers;
  for (std::size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      pin_to(run.cpus[t]);
      const std::size_t begin = t * per_thread;
      const std::size_t end = begin + per_thread;
      // First touch from the thread that uses the elements: their pages land on its node (unless
      // bound elsewhere).
      for (std::size_t i = begin; i < end; ++i) {
        a[i] = 0;
        b[i] = 1;
        c[i] = 2;
      }
      for (int r = 0; r < repeats; ++r) {
        sync.arrive_and_wait();
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t i = begin; i < end; ++i) a[i] = b[i] + kScalar * c[i];
        sync.arrive_and_wait();  // the slowest thread ends the repeat
        if (t == 0) {
          seconds[static_cast<std::size_t>(r)] =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
      }
    });
  }
  for (auto& worker : workers) worker.join();
  if (a[elements / 2] != 1 + kScalar * 2)
    throw std::runtime_error("host.mem_bw: triad result wrong");
  const double best = *std::min_element(seconds.begin(), seconds.end());
  return best > 0 ? 3.0 * static_cast<double>(elements * sizeof(double)) / best / 1e9 : 0;
}

std::map<int, std::vector<int>> numa_nodes_and_cpus() {
  std::map<int, std::vector<int>> nodes;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/node", error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("node", 0) != 0 || name.size() == 4 ||
        name.find_first_not_of("0123456789", 4) != std::string::npos)
      continue;
    const auto text = read_sysfs_text(entry.path() / "cpulist");
    const auto cpus = text ? parse_cpu_list(*text) : std::nullopt;
    if (cpus && !cpus->empty()) nodes[std::stoi(name.substr(4))] = *cpus;
  }
  if (nodes.empty()) {
    std::vector<int> all;
    const long count = sysconf(_SC_NPROCESSORS_ONLN);
    for (int cpu = 0; cpu < count; ++cpu) all.push_back(cpu);
    nodes[0] = all;
  }
  return nodes;
}

std::vector<Finding> judge_memory_bandwidth(const std::vector<Measurement>& measurements) {
  std::map<std::string, std::vector<const Measurement*>> by_host;
  for (const Measurement& m : measurements) {
    if (m.probe == kHostMemBwProbe && m.metric == kNumaTriadMetric &&
        m.status == MeasurementStatus::ok)
      by_host[m.host].push_back(&m);
  }
  std::vector<Finding> out;
  for (const auto& [host, nodes] : by_host) {
    if (nodes.size() < 2) continue;
    std::vector<double> values;
    for (const Measurement* m : nodes) values.push_back(m->value);
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    const double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    for (const Measurement* m : nodes) {
      if (m->value >= 0.8 * median) continue;
      Finding f = finding_about(*m, Severity::warn);
      f.expected = 0.8 * median;
      char text[160];
      std::snprintf(
          text, sizeof text,
          "%s memory bandwidth %.1f GB/s is %.0f%% below the median %.1f GB/s of this host's nodes",
          m->subject.c_str(), m->value, 100 * (1 - m->value / median), median);
      f.message = text;
      f.remedy =
          "check the node's DIMMs (dmidecode -t memory: every channel populated, same speed), "
          "the BIOS memory settings, and EDAC errors (edac-util)";
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace fabcheck
