// The watchdog's own channel: small fixed-size messages from every rank to the root over TCP, apart
// from MPI, so that MPI runs without thread support (full speed for small messages) and the root
// still hears a rank whose MPI calls are stuck.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace fabcheck {

// Sent as raw bytes: every rank runs the same binary (one mpirun), so the layout is shared.
struct WatchMessage {
  enum Kind : std::int32_t { arrival = 0, progress = 1 };
  std::int32_t rank = 0;
  std::int32_t kind = arrival;
  std::int32_t phase = 0;        // arrival: checkpoint number
  double timeout_s = 0;          // arrival: the step's limit
  std::uint64_t operations = 0;  // progress: World::progress()
  char label[104] = {};          // arrival: the step's name (truncated)
};

class WatchServer {
 public:
  // Listens on an ephemeral TCP port on every interface. Throws std::runtime_error on failure.
  WatchServer();
  ~WatchServer();
  WatchServer(const WatchServer&) = delete;
  WatchServer& operator=(const WatchServer&) = delete;

  int port() const { return port_; }
  // "PORT HOST ADDRESS..." for the other ranks: the root's host name and IPv4 addresses.
  std::string endpoint() const;
  // Accepts waiting connections and hands over every complete message received; never blocks.
  void poll(const std::function<void(const WatchMessage&)>& on_message);

 private:
  struct Connection {
    int fd = -1;
    std::vector<char> pending;
  };
  int listen_fd_ = -1;
  int port_ = 0;
  std::vector<Connection> connections_;
};

class WatchClient {
 public:
  // Connects to a WatchServer::endpoint(): the host name first (loopback when `same_host`), then
  // each address. Throws std::runtime_error naming what was tried.
  WatchClient(const std::string& endpoint, bool same_host);
  ~WatchClient();
  WatchClient(const WatchClient&) = delete;
  WatchClient& operator=(const WatchClient&) = delete;

  // Thread-safe; a failed write is ignored (the root then hears nothing, which it reports).
  void send(const WatchMessage& message);

 private:
  std::mutex mutex_;
  int fd_ = -1;
};

}  // namespace fabcheck
