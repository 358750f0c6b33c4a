// The watchdog's TCP channel: a non-blocking server on rank 0's sentinel, one client per other
// rank's sentinel, length-prefixed messages both ways.
#include "bench/core/watch_channel.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "bench/core/world.hpp"

namespace fabcheck {
namespace {

std::runtime_error system_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

// Connects to host:port with a short timeout; -1 on failure.
int connect_to(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return -1;
  int result = -1;
  for (addrinfo* a = found; a != nullptr && result < 0; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    timeval timeout{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      result = fd;
    } else {
      close(fd);
    }
  }
  freeaddrinfo(found);
  return result;
}

// Writes what waits in `out` without blocking; false when the connection is broken.
bool flush(int fd, std::string& out) {
  while (!out.empty()) {
    const ssize_t sent = ::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent > 0) {
      out.erase(0, static_cast<std::size_t>(sent));
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    return sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  return true;
}

// Reads what arrived into `in`; false once the peer closed or the connection broke.
bool fill(int fd, std::string& in) {
  char buffer[4096];
  while (true) {
    const ssize_t got = ::recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (got > 0) {
      in.append(buffer, static_cast<std::size_t>(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    return got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

struct Header {
  std::int32_t kind;
  std::int32_t rank;
  std::int32_t phase;
  std::uint32_t text_length;
  double timeout_s;
  std::uint64_t operations;
};

}  // namespace

WatchServer::WatchServer() {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw system_error("watchdog socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(listen_fd_, 1024) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const auto error = system_error("watchdog listen");
    close(listen_fd_);
    throw error;
  }
  port_ = ntohs(address.sin_port);
}

WatchServer::~WatchServer() {
  for (auto& connection : connections_) close(connection.fd);
  if (listen_fd_ >= 0) close(listen_fd_);
}

std::string WatchServer::endpoint() const {
  std::string text = std::to_string(port_) + " " + local_hostname();
  ifaddrs* interfaces = nullptr;
  if (getifaddrs(&interfaces) == 0) {
    for (ifaddrs* i = interfaces; i != nullptr; i = i->ifa_next) {
      if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
      char address[INET_ADDRSTRLEN] = {};
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, address,
                sizeof(address));
      text += std::string(" ") + address;
    }
    freeifaddrs(interfaces);
  }
  return text;
}

void WatchServer::poll(const std::function<void(int, const WatchMessage&)>& on_message,
                       const std::function<void(int)>& on_closed) {
  while (true) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) break;
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    connections_.push_back({fd, {}, {}});
  }
  for (std::size_t c = 0; c < connections_.size(); ++c) {
    Connection& connection = connections_[c];
    if (connection.fd < 0) continue;
    const bool open = fill(connection.fd, connection.in) && flush(connection.fd, connection.out);
    for (const auto& message : decode_watch_messages(connection.in))
      on_message(static_cast<int>(c), message);
    if (!open) {
      close(connection.fd);
      connection.fd = -1;
      if (on_closed) on_closed(static_cast<int>(c));
    }
  }
}

void WatchServer::send_to_all(const WatchMessage& message) {
  const std::string bytes = encode_watch_message(message);
  for (auto& connection : connections_) {
    if (connection.fd < 0) continue;
    connection.out += bytes;
    flush(connection.fd, connection.out);
  }
}

WatchClient::WatchClient(const std::string& endpoint, bool same_host) {
  std::istringstream words(endpoint);
  int port = 0;
  words >> port;
  std::vector<std::string> hosts;
  if (same_host) hosts.push_back("127.0.0.1");
  for (std::string word; words >> word;) hosts.push_back(word);
  std::string tried;
  for (const auto& host : hosts) {
    fd_ = connect_to(host, port);
    if (fd_ >= 0) return;
    tried += (tried.empty() ? "" : ", ") + host;
  }
  throw std::runtime_error("cannot reach the root's watchdog on port " + std::to_string(port) +
                           " (tried " + tried + ")");
}

WatchClient::~WatchClient() {
  if (fd_ >= 0) {
    flush(fd_, out_);
    close(fd_);
  }
}

void WatchClient::send(const WatchMessage& message) {
  if (fd_ < 0) return;
  out_ += encode_watch_message(message);
  flush(fd_, out_);
}

bool WatchClient::poll(const std::function<void(const WatchMessage&)>& on_message) {
  if (fd_ < 0) return false;
  const bool open = fill(fd_, in_) && flush(fd_, out_);
  for (const auto& message : decode_watch_messages(in_)) on_message(message);
  if (!open) {
    close(fd_);
    fd_ = -1;
  }
  return open;
}

std::string encode_watch_message(const WatchMessage& message) {
  const std::size_t length = std::min(message.text.size(), WatchMessage::kMaxText);
  const Header header{message.kind,      message.rank,
                      message.phase,     static_cast<std::uint32_t>(length),
                      message.timeout_s, message.operations};
  std::string bytes(sizeof(header), '\0');
  std::memcpy(bytes.data(), &header, sizeof(header));
  bytes.append(message.text, 0, length);
  return bytes;
}

std::vector<WatchMessage> decode_watch_messages(std::string& pending) {
  std::vector<WatchMessage> messages;
  std::size_t used = 0;
  while (pending.size() - used >= sizeof(Header)) {
    Header header{};
    std::memcpy(&header, pending.data() + used, sizeof(header));
    const std::size_t length = std::min<std::size_t>(header.text_length, WatchMessage::kMaxText);
    if (pending.size() - used - sizeof(header) < length) break;
    WatchMessage message;
    message.kind = static_cast<WatchMessage::Kind>(header.kind);
    message.rank = header.rank;
    message.phase = header.phase;
    message.timeout_s = header.timeout_s;
    message.operations = header.operations;
    message.text.assign(pending, used + sizeof(header), length);
    messages.push_back(std::move(message));
    used += sizeof(header) + length;
  }
  pending.erase(0, used);
  return messages;
}

}  // namespace fabcheck
