// The watchdog's own channel: messages between the sentinels (sentinel.hpp) of the ranks and the
// one on rank 0, over TCP, apart from MPI. MPI then runs without thread support (full speed for
// small messages), and a sentinel is heard while its rank's MPI calls are stuck. Never blocks:
// what cannot be sent yet waits in a buffer.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fabcheck {

struct WatchMessage {
  enum Kind : std::int32_t {
    hello = 0,        // to the root: `rank` on host `text`
    arrival = 1,      // to the root: `rank` reached checkpoint `phase`, step `text`, `timeout_s`
    progress = 2,     // to the root: `rank` entered `operations` operations (also a heartbeat)
    end_request = 3,  // to the root: end the run, `phase` = Ending, `text` = why
    done = 4,         // to the root: `rank` exited by itself with code `phase`
    end = 5,          // from the root: the run ends, `phase` = Ending, `text` = why
    heartbeat = 6,    // from the root: it is alive
  };
  Kind kind = hello;
  std::int32_t rank = 0;
  std::int32_t phase = 0;
  double timeout_s = 0;
  std::uint64_t operations = 0;
  std::string text;  // at most kMaxText bytes are sent

  static constexpr std::size_t kMaxText = 4096;
};

// Framing, for the tests: a fixed header and the text.
std::string encode_watch_message(const WatchMessage& message);
// Takes every whole message off the front of `pending`.
std::vector<WatchMessage> decode_watch_messages(std::string& pending);

class WatchServer {
 public:
  // Listens on an ephemeral TCP port on every interface. Throws std::runtime_error on failure.
  WatchServer();
  ~WatchServer();
  WatchServer(const WatchServer&) = delete;
  WatchServer& operator=(const WatchServer&) = delete;

  int port() const { return port_; }
  // "PORT HOST ADDRESS..." for the other ranks: this host's name and IPv4 addresses.
  std::string endpoint() const;
  // Accepts waiting connections, hands over every whole message received (with the connection
  // it came on), reports connections that closed, and sends what waits. Never blocks.
  void poll(const std::function<void(int connection, const WatchMessage&)>& on_message,
            const std::function<void(int connection)>& on_closed = nullptr);
  void send_to_all(const WatchMessage& message);

 private:
  struct Connection {
    int fd = -1;
    std::string in;
    std::string out;
  };
  int listen_fd_ = -1;
  int port_ = 0;
  std::vector<Connection> connections_;
};

class WatchClient {
 public:
  // Connects to a WatchServer::endpoint(): loopback first when `same_host`, then the host name,
  // then each address. Throws std::runtime_error naming what was tried.
  WatchClient(const std::string& endpoint, bool same_host);
  ~WatchClient();
  WatchClient(const WatchClient&) = delete;
  WatchClient& operator=(const WatchClient&) = delete;

  void send(const WatchMessage& message);
  // Sends what waits, hands over what arrived; false once the server closed the connection.
  bool poll(const std::function<void(const WatchMessage&)>& on_message);

 private:
  int fd_ = -1;
  std::string in_;
  std::string out_;
};

}  // namespace fabcheck
