// NCCL debug log (NCCL_DEBUG=INFO) parsed into what NCCL chose: network, devices, per-channel
// transports.
#include "fabric/nccl_log.hpp"

#include <functional>

#include "bench/sys/config_error.hpp"
#include "bench/sys/text_scan.hpp"
#include "results/line_input.hpp"

namespace fabcheck {

namespace {

constexpr std::size_t kMaxExamples = 5;
constexpr std::size_t kMaxWarnings = 20;

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_word(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!letter) return false;
  }
  return true;
}

// "host:pid:tid" at the end of `token` (a launcher tag such as "[1,0]<stdout>:" may come first).
bool parse_host_pid_tid(std::string_view token, NcclLogLine& into) {
  std::size_t last = token.rfind(':');
  if (last == std::string_view::npos || last == 0) return false;
  std::size_t middle = token.rfind(':', last - 1);
  if (middle == std::string_view::npos) return false;
  auto pid = text::parse_unsigned(token.substr(middle + 1, last - middle - 1));
  auto tid = text::parse_unsigned(token.substr(last + 1));
  if (!pid || !tid || *pid > 0x7fffffffu) return false;
  std::string_view host = token.substr(0, middle);
  std::size_t tag_end = host.find_last_of("]>");
  if (tag_end != std::string_view::npos) {
    host.remove_prefix(tag_end + 1);
    text::consume(host, ":");
  }
  into.host = std::string(host);
  into.pid = static_cast<long>(*pid);
  return true;
}

// "[3]" (the CUDA device) or "init.cc:123" (the source position WARN lines carry).
bool is_header_decoration(std::string_view token) {
  if (token.size() >= 3 && token.front() == '[' && token.back() == ']') {
    std::string_view inside = token.substr(1, token.size() - 2);
    text::consume(inside, "-");
    return text::parse_unsigned(inside).has_value();
  }
  std::size_t colon = token.find(':');
  return colon != std::string_view::npos && token.rfind(':') == colon && token.find('.') < colon &&
         text::parse_unsigned(token.substr(colon + 1)).has_value();
}

// "12[5d000]": rank and the bracketed device (nvml index or hex bus id).
bool consume_endpoint(std::string_view& text, int& rank, std::string& device) {
  auto value = text::consume_int(text);
  if (!value || !text::consume(text, "[")) return false;
  std::size_t n = 0;
  while (n < text.size() && is_hex_digit(text[n])) ++n;
  if (n == 0 || n >= text.size() || text[n] != ']') return false;
  rank = *value;
  device = std::string(text.substr(0, n));
  text.remove_prefix(n + 1);
  return true;
}

bool classify_net(std::string_view via, NcclConnection& c) {
  if (!text::consume(via, "NET/")) return false;
  std::size_t slash = via.find('/');
  if (slash == 0 || slash == std::string_view::npos) return false;
  c.net_name = std::string(via.substr(0, slash));
  via.remove_prefix(slash + 1);
  auto device = text::consume_int(via);
  if (!device) return false;
  c.net_device = *device;
  if (text::consume(via, "(")) {
    auto proxy = text::consume_int(via);
    if (!proxy || !text::consume(via, ")")) return false;
    c.proxy_rank = *proxy;
  }
  while (!via.empty()) {
    if (text::consume(via, "/GDRDMA")) {
      c.gdr = true;
    } else if (!text::consume(via, "/Shared") && !text::consume(via, "(PCI)")) {
      return false;
    }
  }
  if (c.net_name == "IB") {
    c.transport = NcclTransport::net_ib;
  } else if (c.net_name == "Socket") {
    c.transport = NcclTransport::net_socket;
  } else {
    c.transport = NcclTransport::net_other;
  }
  return true;
}

bool classify_p2p(std::string_view via, NcclConnection& c) {
  if (!text::consume(via, "P2P/")) return false;
  for (std::string_view kind : {"direct pointer", "CUMEM", "MNNVL", "IPC"}) {
    if (text::consume(via, kind)) {
      c.p2p_kind = std::string(kind);
      break;
    }
  }
  if (c.p2p_kind.empty()) {
    if (!text::consume(via, "indirect/")) return false;
    int rank = -1;
    std::string device;
    if (!consume_endpoint(via, rank, device)) return false;
    c.p2p_kind = "indirect";
  }
  while (!via.empty()) {
    if (!text::consume(via, "/read") && !text::consume(via, "/CE")) return false;
  }
  c.transport = NcclTransport::p2p;
  return true;
}

bool classify_shm(std::string_view via, NcclConnection& c) {
  if (!text::consume(via, "SHM/")) return false;
  std::size_t slash = via.find('/');
  if (slash == std::string_view::npos) return false;
  if (!is_word(via.substr(0, slash)) || !is_word(via.substr(slash + 1))) return false;
  c.transport = NcclTransport::shm;
  return true;
}

// "Channel 00/24 :    0   1   2": the ring order GRAPH prints, not a connection.
bool is_ring_listing(std::string_view after_colon) {
  auto tokens = text::split_whitespace(after_colon);
  if (tokens.empty()) return false;
  for (auto token : tokens) {
    if (!text::parse_unsigned(token)) return false;
  }
  return true;
}

std::vector<std::string> device_list(std::string_view after_using) {
  std::vector<std::string> devices;
  std::size_t semicolon = after_using.find(';');
  for (auto token : text::split_whitespace(after_using.substr(0, semicolon))) {
    if (token.front() != '[') continue;
    std::size_t close = token.find(']');
    if (close == std::string_view::npos || close + 1 >= token.size()) continue;  // "[RO]"
    devices.emplace_back(token.substr(close + 1));
  }
  return devices;
}

std::optional<NcclCommRank> parse_comm_line(std::string_view message) {
  auto tokens = text::split_whitespace(message);
  NcclCommRank info;
  bool have_rank = false;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    auto value = text::parse_small_int(tokens[i + 1]);
    if (!value) continue;
    if (tokens[i] == "rank") {
      info.rank = *value;
      have_rank = true;
    } else if (tokens[i] == "nRanks") {
      info.nranks = *value;
    } else if (tokens[i] == "nNodes") {
      info.nnodes = *value;
    } else if (tokens[i] == "localRanks") {
      info.local_ranks = *value;
    }
  }
  if (!have_rank || info.nranks == 0) return std::nullopt;
  return info;
}

}  // namespace

std::string NcclLogSource::describe() const {
  return file + ":" + std::to_string(line) + ": " + text;
}

const char* to_string(NcclTransport transport) {
  switch (transport) {
    case NcclTransport::net_ib:
      return "NET/IB";
    case NcclTransport::net_socket:
      return "NET/Socket";
    case NcclTransport::net_other:
      return "NET";
    case NcclTransport::p2p:
      return "P2P";
    case NcclTransport::shm:
      return "SHM";
  }
  return "?";
}

std::optional<NcclLogLine> parse_nccl_log_line(std::string_view line) {
  std::size_t at = std::string_view::npos;
  std::string_view level;
  for (std::string_view candidate : {"NCCL INFO", "NCCL WARN"}) {
    std::size_t found = line.find(candidate);
    if (found != std::string_view::npos && found < at) {
      at = found;
      level = candidate.substr(5);
    }
  }
  if (at == std::string_view::npos) return std::nullopt;
  NcclLogLine parsed;
  parsed.level = std::string(level);
  parsed.message = std::string(text::trim(line.substr(at + 9)));
  auto tokens = text::split_whitespace(line.substr(0, at));
  for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) {
    if (is_header_decoration(*it)) continue;
    parse_host_pid_tid(*it, parsed);
    break;
  }
  return parsed;
}

std::optional<NcclConnection> parse_nccl_channel(std::string_view message) {
  NcclConnection c;
  std::string_view s = message;
  auto channel = text::consume_int(s);
  if (!channel) return std::nullopt;
  c.channel = *channel;
  if (text::consume(s, "/") && !text::consume_int(s)) return std::nullopt;
  if (!text::consume(s, " : ")) return std::nullopt;
  s = text::trim(s);
  if (!consume_endpoint(s, c.from_rank, c.from_device)) return std::nullopt;
  if (!text::consume(s, " -> ")) return std::nullopt;
  if (!consume_endpoint(s, c.to_rank, c.to_device)) return std::nullopt;
  if (text::consume(s, " [send]")) {
    c.direction = "send";
  } else if (text::consume(s, " [receive]")) {
    c.direction = "receive";
  }
  if (!text::consume(s, " via ")) return std::nullopt;
  std::string_view via = text::trim(s);
  c.via = std::string(via);
  if (classify_net(via, c) || classify_p2p(via, c) || classify_shm(via, c)) return c;
  return std::nullopt;
}

namespace {

// Keeps `record` in `records` unless the same one (by `key`) was kept or the kind is full.
template <typename Record>
void keep(NcclLog& log, std::vector<Record>& records, std::size_t limit, const std::string& key,
          Record record) {
  const std::uint64_t hash = std::hash<std::string>{}(key);
  if (log.kept_keys.count(hash) != 0) {
    ++log.repeated;
  } else if (records.size() >= limit) {
    ++log.not_kept;
  } else {
    log.kept_keys.insert(hash);
    records.push_back(std::move(record));
  }
}

std::string process_key(const char* kind, const std::string& host, long pid) {
  return std::string(kind) + "|" + host + "|" + std::to_string(pid) + "|";
}

}  // namespace

void parse_nccl_log_line_into(std::string_view raw, const std::string& file,
                              std::size_t line_number, NcclLog& log) {
  ++log.lines;
  auto line = parse_nccl_log_line(raw);
  if (!line) return;
  ++log.nccl_lines;
  NcclLogSource source{file, line_number, std::string(text::trim(raw))};
  std::string_view message = line->message;
  if (line->level == "WARN") {
    if (log.warnings.size() < kMaxWarnings) log.warnings.push_back(source);
    return;
  }
  if (text::consume(message, "Using network ")) {
    std::string network(text::trim(message));
    if (!network.empty()) {
      keep(log, log.networks, NcclLog::kMaxRecords,
           process_key("network", line->host, line->pid) + network,
           NcclNetworkChoice{line->host, line->pid, network, source});
    }
  } else if (message.rfind("NET/IB : No device found", 0) == 0) {
    keep(log, log.ib_no_device, NcclLog::kMaxRecords, process_key("no-ib", line->host, line->pid),
         source);
  } else if (text::consume(message, "NET/IB : Using")) {
    keep(log, log.net_devices, NcclLog::kMaxRecords,
         process_key("ib-devices", line->host, line->pid) + std::string(message),
         NcclNetDevices{line->host, line->pid, "IB", device_list(message), source});
  } else if (text::consume(message, "NET/Socket : Using")) {
    keep(log, log.net_devices, NcclLog::kMaxRecords,
         process_key("socket-devices", line->host, line->pid) + std::string(message),
         NcclNetDevices{line->host, line->pid, "Socket", device_list(message), source});
  } else if (text::consume(message, "Channel ")) {
    std::size_t colon = message.find(" : ");
    if (colon != std::string_view::npos && is_ring_listing(message.substr(colon + 3))) return;
    auto connection = parse_nccl_channel(message);
    if (!connection) {
      ++log.unrecognised;
      if (log.unrecognised_examples.size() < kMaxExamples) {
        log.unrecognised_examples.push_back(source);
      }
      return;
    }
    connection->host = line->host;
    connection->pid = line->pid;
    connection->source = std::move(source);
    std::string key =
        process_key("channel", line->host, line->pid) + std::to_string(connection->channel) + "|" +
        std::to_string(connection->from_rank) + "|" + std::to_string(connection->to_rank) + "|" +
        connection->direction + "|" + connection->via;
    keep(log, log.connections, NcclLog::kMaxConnections, key, std::move(*connection));
  } else if (text::consume(message, "comm ")) {
    if (auto info = parse_comm_line(message)) {
      info->host = line->host;
      info->pid = line->pid;
      keep(log, log.comm_ranks, NcclLog::kMaxRecords,
           process_key("comm", line->host, line->pid) + std::string(message), *info);
    }
  } else if (message.find("Init COMPLETE") != std::string_view::npos) {
    ++log.init_complete;
  } else if (message.find("GPU Direct RDMA Disabled for HCA") != std::string_view::npos &&
             message.rfind("NET/Socket", 0) != 0) {  // sockets never do GDR: not news
    if (log.gdr_disabled_for_hca.size() < kMaxExamples) log.gdr_disabled_for_hca.push_back(source);
  } else if (message.find("GPU Direct RDMA Disabled for GPU") != std::string_view::npos) {
    if (log.gdr_disabled_by_distance.size() < kMaxExamples)
      log.gdr_disabled_by_distance.push_back(source);
  } else if ((message.rfind("NCCL_IB_DISABLE set by environment to ", 0) == 0 ||
              message.rfind("NCCL_NET set by environment to ", 0) == 0) &&
             log.network_set_by_environment.size() < kMaxExamples) {
    log.network_set_by_environment.push_back(source);
  } else if (message.rfind("NCCL_NET_GDR_LEVEL set by environment to ", 0) == 0) {
    if (log.gdr_set_by_environment.size() < kMaxExamples)
      log.gdr_set_by_environment.push_back(source);
  } else if (message.rfind("NCCL_P2P_DISABLE set by environment to ", 0) == 0 ||
             message.rfind("NCCL_P2P_LEVEL set by environment to ", 0) == 0) {
    if (log.p2p_set_by_environment.size() < kMaxExamples)
      log.p2p_set_by_environment.push_back(source);
  }
}

void parse_nccl_log_text(std::string_view text, const std::string& file, NcclLog& log) {
  std::size_t line_number = 0;
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    std::string_view raw = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (raw.size() > NcclLog::kMaxLineBytes) {
      raw = raw.substr(0, NcclLog::kMaxLineBytes);
      ++log.long_lines;
    }
    parse_nccl_log_line_into(raw, file, ++line_number, log);
  }
}

NcclLog read_nccl_logs(const std::vector<std::string>& files) {
  NcclLog log;
  for (const auto& file : files) {
    read_lines(
        file, "an NCCL log file",
        [&](std::string_view line, std::size_t number, bool cut) {
          if (cut) ++log.long_lines;
          parse_nccl_log_line_into(line, file, number, log);
        },
        NcclLog::kMaxLineBytes);
  }
  return log;
}

}  // namespace fabcheck
