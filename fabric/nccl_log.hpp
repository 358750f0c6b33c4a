// NCCL debug log (NCCL_DEBUG=INFO) parsed into what NCCL chose: network, devices, per-channel
// transports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace fabcheck {

// Where a parsed fact came from, quoted as evidence ("rank0.log:12: <the line>").
struct NcclLogSource {
  std::string file;
  std::size_t line = 0;
  std::string text;
  std::string describe() const;
};

// The "host:pid:tid [dev] NCCL INFO" header of one line, with launcher and timestamp prefixes
// removed.
struct NcclLogLine {
  std::string host;  // empty when the header was cut off
  long pid = -1;
  std::string level;    // "INFO", "WARN"
  std::string message;  // what follows "NCCL INFO "
};

// Returns nullopt for a line that is not an NCCL debug line.
std::optional<NcclLogLine> parse_nccl_log_line(std::string_view line);

enum class NcclTransport { net_ib, net_socket, net_other, p2p, shm };
const char* to_string(NcclTransport transport);  // "NET/IB", "NET/Socket", "NET", "P2P", "SHM"

// One "Channel NN/C : a[x] -> b[y] [send] via ..." line.
struct NcclConnection {
  int channel = -1;
  int from_rank = -1;
  int to_rank = -1;
  std::string
      from_device;  // inside the brackets: nvml index, or the hex PCI bus id of old releases
  std::string to_device;
  std::string direction;  // "send", "receive" or "" (P2P and SHM lines name none)
  NcclTransport transport = NcclTransport::net_other;
  std::string via;       // the text after "via ", e.g. "NET/IB/0/GDRDMA", "P2P/CUMEM/read"
  std::string net_name;  // "IB", "Socket" or a plugin's name (NET only)
  int net_device = -1;   // NET only
  int proxy_rank = -1;   // PXN: the local rank whose NIC carries the traffic
  bool gdr = false;      // NET/.../GDRDMA
  std::string p2p_kind;  // "CUMEM", "MNNVL", "IPC", "direct pointer", "indirect" (P2P only)
  std::string host;      // host of the process that logged it
  long pid = -1;
  NcclLogSource source;
  // The rank of the process that printed the line: the receiver for [receive], else the sender.
  int logging_rank() const { return direction == "receive" ? to_rank : from_rank; }
};

// Parses the part of a "Channel ..." message after "Channel "; nullopt when any piece is unknown or
// cut off (so a truncated line never counts as a transport).
std::optional<NcclConnection> parse_nccl_channel(std::string_view message);

// "comm 0x... rank R nRanks N nNodes M localRanks L localRank l ..."
struct NcclCommRank {
  int rank = -1;
  int nranks = 0;
  int nnodes = 0;
  int local_ranks = 0;
  std::string host;
  long pid = -1;
};

// "Using network IB" and the device list NCCL printed, per process.
struct NcclNetworkChoice {
  std::string host;
  long pid = -1;
  std::string network;  // "IB", "Socket", a plugin name
  NcclLogSource source;
};

struct NcclNetDevices {
  std::string host;
  long pid = -1;
  std::string transport;             // "IB" or "Socket"
  std::vector<std::string> devices;  // "mlx5_0:1/IB", "eth0:10.0.0.1<0>"
  NcclLogSource source;
};

struct NcclLog {
  std::size_t lines = 0;       // every line read
  std::size_t nccl_lines = 0;  // lines with an NCCL header
  std::size_t unrecognised =
      0;  // NCCL Channel lines that could not be read (cut off, unknown kind)
  std::vector<NcclLogSource> unrecognised_examples;  // the first few of them
  std::vector<NcclNetworkChoice> networks;
  std::vector<NcclNetDevices> net_devices;
  std::vector<NcclLogSource> ib_no_device;  // "NET/IB : No device found."
  std::vector<NcclConnection> connections;
  std::vector<NcclCommRank> comm_ranks;
  std::vector<NcclLogSource> warnings;  // NCCL WARN lines
  std::size_t init_complete = 0;

  // Bounded memory, whatever the size of the logs: a record seen before (same process, same
  // line) is counted, not kept again; past kMaxConnections connections (kMaxRecords of each
  // other kind) records are counted, not kept; a line longer than kMaxLineBytes is read cut.
  static constexpr std::size_t kMaxConnections = 100000;
  static constexpr std::size_t kMaxRecords = 10000;
  static constexpr std::size_t kMaxLineBytes = 64 * 1024;
  std::size_t repeated = 0;                     // records already kept, seen again
  std::size_t not_kept = 0;                     // records past the limits
  std::size_t long_lines = 0;                   // lines cut to kMaxLineBytes
  std::unordered_set<std::uint64_t> kept_keys;  // hashes of what identifies each record kept
  // What NCCL said about GPUDirect RDMA: "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'
  // (no module)" (the HCA or driver cannot do it), and "GPU Direct RDMA Disabled for GPU 0 / HCA 0
  // (distance 8 > 5)" (NCCL judged the two too far apart). The first few of each.
  std::vector<NcclLogSource> gdr_disabled_for_hca;
  std::vector<NcclLogSource> gdr_disabled_by_distance;
  // "NCCL_IB_DISABLE set by environment to 1." / "NCCL_NET set by environment to Socket."
  std::vector<NcclLogSource> network_set_by_environment;
  // "NCCL_NET_GDR_LEVEL set by environment to LOC." (GPUDirect RDMA limited by hand), and
  // "NCCL_P2P_DISABLE set by environment to 1." / "NCCL_P2P_LEVEL set by environment to LOC."
  // (P2P between GPUs of one node limited by hand).
  std::vector<NcclLogSource> gdr_set_by_environment;
  std::vector<NcclLogSource> p2p_set_by_environment;
};

// Adds what `text` (a whole log or a piece of one) says to `log`; `file` names it in evidence.
void parse_nccl_log_text(std::string_view text, const std::string& file, NcclLog& log);

// Adds one line (without its newline), line `line_number` of `file`.
void parse_nccl_log_line_into(std::string_view line, const std::string& file,
                              std::size_t line_number, NcclLog& log);

// Reads and parses each file into one log, streaming (a 1 MiB buffer; memory bounded as NcclLog
// says, whatever the size). Only regular files: throws ConfigError naming a path that is missing,
// a directory, a FIFO, a device, or unreadable.
NcclLog read_nccl_logs(const std::vector<std::string>& files);

}  // namespace fabcheck
