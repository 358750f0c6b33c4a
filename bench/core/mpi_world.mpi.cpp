// MpiWorld: the ranks of MPI_COMM_WORLD. Checkpoints and progress go to the RankStatus page that
// this rank's sentinel reads (sentinel.hpp); the sentinels talk to the watchdog on rank 0's
// sentinel over a TCP channel of their own (watch_channel.hpp), not MPI. So MPI runs with
// MPI_THREAD_FUNNELED (its locks for MPI_THREAD_MULTIPLE cost a third of small-message
// bandwidth), a rank whose MPI is stuck is still watched, and so is a rank that is stopped.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "bench/core/rank_status.hpp"
#include "bench/core/timer.hpp"
#include "bench/core/world.hpp"

namespace fabcheck {
namespace {

constexpr std::size_t kHostNameBytes = 256;
// How long a rank waits for its sentinel to start the watchdog or connect to it (only a rank that
// has a sentinel waits: without one, the page is its own and nobody answers).
constexpr double kWatchSetup_s = 10;

class MpiWorld final : public World {
 public:
  MpiWorld(int* argc, char*** argv) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(comm_, &rank);
    MPI_Comm_size(comm_, &size);

    std::vector<char> mine(kHostNameBytes, '\0');
    const std::string host = local_hostname();
    std::memcpy(mine.data(), host.data(), std::min(host.size(), kHostNameBytes - 1));
    std::vector<char> all(kHostNameBytes * static_cast<std::size_t>(size));
    MPI_Allgather(mine.data(), static_cast<int>(kHostNameBytes), MPI_CHAR, all.data(),
                  static_cast<int>(kHostNameBytes), MPI_CHAR, comm_);
    std::vector<std::string> hosts;
    for (int r = 0; r < size; ++r)
      hosts.emplace_back(all.data() + kHostNameBytes * static_cast<std::size_t>(r));
    set_layout(rank, std::move(hosts));
    connect_sentinels();
  }

  ~MpiWorld() override {
    checkpoint("finish", 60);
    MPI_Comm_free(&comm_);
    MPI_Finalize();
  }

  bool is_mpi() const override { return true; }
  void barrier() override { MPI_Barrier(comm_); }

  void max_in_place(std::vector<double>& values) override {
    MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX,
                  comm_);
  }
  void sum_in_place(std::vector<double>& values) override {
    MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM,
                  comm_);
  }

  std::vector<std::string> gather_to_root(const std::string& mine) override {
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<std::size_t>(size()));
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm_);
    std::vector<int> offsets(lengths.size(), 0);
    std::size_t total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += static_cast<std::size_t>(lengths[r]);
    }
    std::vector<char> buffer(std::max<std::size_t>(total, 1));
    MPI_Gatherv(mine.data(), length, MPI_CHAR, buffer.data(), lengths.data(), offsets.data(),
                MPI_CHAR, 0, comm_);
    if (!is_root()) return {};
    std::vector<std::string> result;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      result.emplace_back(buffer.data() + offsets[r], static_cast<std::size_t>(lengths[r]));
    }
    return result;
  }

  std::string broadcast_from_root(const std::string& value) override {
    unsigned long long length = value.size();
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm_);
    std::string result = is_root() ? value : std::string(length, '\0');
    MPI_Bcast(result.data(), static_cast<int>(length), MPI_CHAR, 0, comm_);
    return result;
  }

  void checkpoint(const std::string& label, double timeout_s) override {
    rank_status().begin_step(phase_++, label, timeout_s);
  }

 private:
  // Tells this rank's sentinel which rank it watches; rank 0's sentinel then starts the watchdog,
  // whose address every other rank passes to its own sentinel. A rank whose sentinel cannot take
  // part is named on stderr (it is still watched by its own sentinel, but not by the watchdog).
  void connect_sentinels() {
    RankStatus& status = rank_status();
    status.size.store(size());
    status.rank.store(rank());
    const bool watched = status.sentinel_pid.load() != 0;
    std::string endpoint;
    if (is_root() && watched) {
      wait_for_watch_state(status);
      endpoint = status.watch_endpoint.load();
    }
    endpoint = broadcast_from_root(endpoint);
    if (!is_root() && watched && !endpoint.empty()) {
      status.watch_endpoint.store(endpoint);
      wait_for_watch_state(status);
    }
    std::string problem;
    if (!watched) {
      problem = "no sentinel watches this rank";
    } else if (status.watch_state.load() != 1) {
      problem =
          endpoint.empty() && !is_root() ? "rank 0 has no watchdog" : status.watch_problem.load();
      if (problem.empty()) problem = "its sentinel did not answer";
    }
    const auto problems = gather_to_root(problem);
    std::string report;
    for (std::size_t r = 0; r < problems.size(); ++r) {
      if (!problems[r].empty())
        report += "; " + describe_rank(static_cast<int>(r)) + ": " + problems[r];
    }
    if (!report.empty()) {
      std::fprintf(stderr,
                   "fabcheck: warning: the watchdog does not hear every rank, so a hang there is "
                   "named only by that rank's own sentinel%s\n",
                   report.c_str());
    }
  }

  static void wait_for_watch_state(RankStatus& status) {
    const double deadline = now_seconds() + kWatchSetup_s;
    while (status.watch_state.load() == 0 && now_seconds() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int phase_ = 0;
};

}  // namespace

std::unique_ptr<World> make_mpi_world(int* argc, char*** argv) {
  return std::make_unique<MpiWorld>(argc, argv);
}

bool mpi_available() { return true; }

std::string mpi_library_version() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  // Open MPI counts the terminating NUL in `length`: read up to the first NUL.
  std::string text(version, ::strnlen(version, static_cast<std::size_t>(length)));
  if (const auto newline = text.find_first_of("\r\n"); newline != std::string::npos)
    text.resize(newline);
  while (!text.empty() && (text.back() == ',' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace fabcheck
