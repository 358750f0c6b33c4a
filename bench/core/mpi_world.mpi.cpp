// MpiWorld: the ranks of MPI_COMM_WORLD. Checkpoints and heartbeats reach the root's watchdog over
// a TCP channel of its own (watch_channel.hpp), not MPI: MPI runs with MPI_THREAD_FUNNELED (its
// locks for MPI_THREAD_MULTIPLE cost a third of small-message bandwidth), and a rank whose MPI is
// stuck is still heard. On a hang the watchdog thread ends the job with MPI_Abort(3).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <thread>

#include "bench/core/watch_channel.hpp"
#include "bench/core/watchdog.hpp"
#include "bench/core/world.hpp"

namespace fabcheck {
namespace {

constexpr auto kHeartbeatInterval = std::chrono::milliseconds(500);
constexpr std::size_t kHostNameBytes = 256;

class MpiWorld final : public World {
 public:
  MpiWorld(int* argc, char*** argv, HangHandler on_hang) {
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

    start_watchdog(std::move(on_hang));
  }

  ~MpiWorld() override {
    if (heartbeat_.joinable()) {
      {
        std::lock_guard lock(heartbeat_mutex_);
        stop_heartbeat_ = true;
      }
      heartbeat_wakeup_.notify_all();
      heartbeat_.join();
    }
    checkpoint("finish", 60);
    if (watchdog_) watchdog_->stop_when_all_reached(phase_ - 1);
    watchdog_.reset();
    client_.reset();
    server_.reset();
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
    const int phase = phase_++;
    if (watchdog_) watchdog_->arrive(0, phase, label, timeout_s);
    if (!client_) return;
    WatchMessage message;
    message.rank = rank();
    message.kind = WatchMessage::arrival;
    message.phase = phase;
    message.timeout_s = timeout_s;
    std::strncpy(message.label, label.c_str(), sizeof(message.label) - 1);
    client_->send(message);
  }

 private:
  // The root listens, tells every rank where, and every other rank connects; if any cannot, the
  // run goes on without a watchdog, saying which ranks could not reach it.
  void start_watchdog(HangHandler on_hang) {
    std::string endpoint;
    std::string problem;
    if (is_root()) {
      try {
        server_ = std::make_unique<WatchServer>();
        endpoint = server_->endpoint();
      } catch (const std::exception& error) {
        problem = error.what();
      }
    }
    endpoint = broadcast_from_root(endpoint);
    if (!is_root() && !endpoint.empty()) {
      try {
        client_ = std::make_unique<WatchClient>(endpoint, host() == hosts().front());
      } catch (const std::exception& error) {
        problem = error.what();
      }
    }
    const auto problems = gather_to_root(problem);
    std::string report;
    for (std::size_t r = 0; r < problems.size(); ++r) {
      if (!problems[r].empty())
        report += "; " + describe_rank(static_cast<int>(r)) + ": " + problems[r];
    }
    const bool usable = broadcast_from_root(report.empty() ? "yes" : "no") == "yes";
    if (!usable) {
      if (is_root()) {
        std::fprintf(stderr, "fabcheck: warning: no watchdog in this run, hangs are not caught%s\n",
                     report.c_str());
      }
      client_.reset();
      server_.reset();
      return;
    }
    if (is_root()) {
      std::vector<std::string> names;
      for (int r = 0; r < size(); ++r) names.push_back(describe_rank(r));
      watchdog_ = std::make_unique<Watchdog>(
          std::move(names), std::move(on_hang), [this] { receive_messages(); },
          [] { MPI_Abort(MPI_COMM_WORLD, 3); });
      watchdog_->start();
    } else {
      heartbeat_ = std::thread([this] { send_heartbeats(); });
    }
  }

  // Runs on the root's watchdog thread: other ranks' checkpoints and heartbeats, and its own
  // progress.
  void receive_messages() {
    watchdog_->progress(0, progress());
    server_->poll([this](const WatchMessage& message) {
      if (message.kind == WatchMessage::progress) {
        watchdog_->progress(message.rank, message.operations);
      } else {
        watchdog_->arrive(message.rank, message.phase, message.label, message.timeout_s);
      }
    });
  }

  // Runs on every other rank's heartbeat thread: its progress, twice a second, so the root can tell
  // a rank that lags or has gone silent.
  void send_heartbeats() {
    std::unique_lock lock(heartbeat_mutex_);
    while (!stop_heartbeat_) {
      WatchMessage message;
      message.rank = rank();
      message.kind = WatchMessage::progress;
      message.operations = progress();
      client_->send(message);
      heartbeat_wakeup_.wait_for(lock, kHeartbeatInterval, [this] { return stop_heartbeat_; });
    }
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::unique_ptr<WatchServer> server_;  // root
  std::unique_ptr<WatchClient> client_;  // other ranks
  std::unique_ptr<Watchdog> watchdog_;   // root
  int phase_ = 0;
  std::thread heartbeat_;
  std::mutex heartbeat_mutex_;
  std::condition_variable heartbeat_wakeup_;
  bool stop_heartbeat_ = false;
};

}  // namespace

std::unique_ptr<World> make_mpi_world(int* argc, char*** argv, HangHandler on_hang) {
  return std::make_unique<MpiWorld>(argc, argv, std::move(on_hang));
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
