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

#include "bench/core/mpi_comm_world.hpp"
#include "bench/core/rank_status.hpp"
#include "bench/core/world.hpp"
#include "bench/sys/timer.hpp"

namespace fabcheck {
namespace {

// How long a rank waits for its sentinel to start the watchdog or connect to it (only a rank that
// has a sentinel waits: without one, the page is its own and nobody answers).
constexpr double kWatchSetup_s = 10;

class MpiWorld final : public MpiCommWorld {
 public:
  MpiWorld(int* argc, char*** argv) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    adopt_with_host_names(comm);
    connect_sentinels();
  }

  ~MpiWorld() override {
    checkpoint("finish", 60);
    release();
    MPI_Finalize();
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
    endpoint = broadcast_value(endpoint);
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
    const auto problems = gather_values(problem);
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
