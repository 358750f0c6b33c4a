// The watchdog's TCP channel: a non-blocking server on the root, one client per other rank.
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

void WatchServer::poll(const std::function<void(const WatchMessage&)>& on_message) {
  while (true) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) break;
    connections_.push_back({fd, {}});
  }
  char buffer[4096];
  for (auto& connection : connections_) {
    if (connection.fd < 0) continue;
    while (true) {
      const ssize_t got = read(connection.fd, buffer, sizeof(buffer));
      if (got > 0) {
        connection.pending.insert(connection.pending.end(), buffer, buffer + got);
        continue;
      }
      if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        close(connection.fd);  // the rank is gone: it goes silent, which the detector reports
        connection.fd = -1;
      }
      break;
    }
    std::size_t used = 0;
    while (connection.pending.size() - used >= sizeof(WatchMessage)) {
      WatchMessage message;
      std::memcpy(&message, connection.pending.data() + used, sizeof(message));
      message.label[sizeof(message.label) - 1] = '\0';
      on_message(message);
      used += sizeof(WatchMessage);
    }
    connection.pending.erase(connection.pending.begin(),
                             connection.pending.begin() + static_cast<long>(used));
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
  if (fd_ >= 0) close(fd_);
}

void WatchClient::send(const WatchMessage& message) {
  std::lock_guard lock(mutex_);
  const char* bytes = reinterpret_cast<const char*>(&message);
  std::size_t left = sizeof(message);
  while (left > 0 && fd_ >= 0) {
    const ssize_t sent = ::send(fd_, bytes, left, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return;
    bytes += sent;
    left -= static_cast<std::size_t>(sent);
  }
}

}  // namespace fabcheck
