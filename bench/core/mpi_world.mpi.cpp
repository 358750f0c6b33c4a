// MpiWorld: the ranks of MPI_COMM_WORLD; the root's watchdog thread receives every rank's checkpoints
// on a communicator of its own and aborts the job (exit 3) naming the ranks that did not arrive.
#include <mpi.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <thread>
#include <cstdio>
#include <cstring>

#include "bench/core/watchdog.hpp"
#include "bench/core/world.hpp"

namespace fabcheck {
namespace {

constexpr int kArrivalTag = 7001;
constexpr int kHeartbeatTag = 7002;
constexpr auto kHeartbeatInterval = std::chrono::milliseconds(500);
constexpr std::size_t kHostNameBytes = 256;

struct Arrival {
  int phase = 0;
  double timeout_s = 0;
  std::array<char, 112> label{};
};

class MpiWorld final : public World {
 public:
  MpiWorld(int* argc, char*** argv, HangHandler on_hang) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_dup(MPI_COMM_WORLD, &watch_comm_);
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
    for (int r = 0; r < size; ++r) hosts.emplace_back(all.data() + kHostNameBytes * static_cast<std::size_t>(r));
    set_layout(rank, std::move(hosts));

    watchdog_enabled_ = provided >= MPI_THREAD_MULTIPLE;
    if (!watchdog_enabled_ && is_root()) {
      std::fprintf(stderr,
                   "fabcheck: warning: the MPI library gives no MPI_THREAD_MULTIPLE; hangs are not "
                   "caught by the watchdog in this run\n");
    }
    if (watchdog_enabled_ && is_root()) {
      std::vector<std::string> names;
      for (int r = 0; r < size; ++r) names.push_back(describe_rank(r));
      watchdog_ = std::make_unique<Watchdog>(
          std::move(names), std::move(on_hang), [this] { receive_arrivals(); },
          [] { MPI_Abort(MPI_COMM_WORLD, 3); });
      watchdog_->start();
    }
    if (watchdog_enabled_ && !is_root()) heartbeat_ = std::thread([this] { send_heartbeats(); });
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
    MPI_Comm_free(&watch_comm_);
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
    if (!watchdog_enabled_) return;
    if (is_root()) {
      watchdog_->arrive(0, phase, label, timeout_s);
      return;
    }
    Arrival arrival;
    arrival.phase = phase;
    arrival.timeout_s = timeout_s;
    std::strncpy(arrival.label.data(), label.c_str(), arrival.label.size() - 1);
    MPI_Send(&arrival, sizeof(arrival), MPI_BYTE, 0, kArrivalTag, watch_comm_);
  }

 private:
  // Runs on the root's watchdog thread: other ranks' checkpoints and heartbeats, and its own
  // progress. Receiving with any tag keeps each rank's messages in the order they were sent.
  void receive_arrivals() {
    watchdog_->progress(0, progress());
    while (true) {
      int waiting = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, watch_comm_, &waiting, &status);
      if (!waiting) return;
      if (status.MPI_TAG == kHeartbeatTag) {
        unsigned long long operations = 0;
        MPI_Recv(&operations, 1, MPI_UNSIGNED_LONG_LONG, status.MPI_SOURCE, kHeartbeatTag,
                 watch_comm_, MPI_STATUS_IGNORE);
        watchdog_->progress(status.MPI_SOURCE, operations);
        continue;
      }
      Arrival arrival;
      MPI_Recv(&arrival, sizeof(arrival), MPI_BYTE, status.MPI_SOURCE, kArrivalTag, watch_comm_,
               MPI_STATUS_IGNORE);
      watchdog_->arrive(status.MPI_SOURCE, arrival.phase, arrival.label.data(), arrival.timeout_s);
    }
  }

  // Runs on every other rank's heartbeat thread: its progress, twice a second, so the root can tell
  // a rank that lags or has gone silent.
  void send_heartbeats() {
    std::unique_lock lock(heartbeat_mutex_);
    while (!stop_heartbeat_) {
      unsigned long long operations = progress();
      MPI_Send(&operations, 1, MPI_UNSIGNED_LONG_LONG, 0, kHeartbeatTag, watch_comm_);
      heartbeat_wakeup_.wait_for(lock, kHeartbeatInterval, [this] { return stop_heartbeat_; });
    }
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm watch_comm_ = MPI_COMM_NULL;
  bool watchdog_enabled_ = false;
  std::unique_ptr<Watchdog> watchdog_;
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
  std::string text(version, static_cast<std::size_t>(length));
  if (const auto newline = text.find_first_of("\r\n"); newline != std::string::npos) text.resize(newline);
  while (!text.empty() && (text.back() == ',' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace fabcheck
