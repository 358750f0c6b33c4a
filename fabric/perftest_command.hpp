// The perftest command line for one rail of one node pair (server or client side).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabcheck {

enum class PerftestTool { write_bw, write_lat };
const char* perftest_program(PerftestTool tool);  // "ib_write_bw", "ib_write_lat"

struct PerftestInvocation {
  PerftestTool tool = PerftestTool::write_bw;
  std::string hca;               // -d mlx5_0
  int ib_port = 1;               // -i
  int tcp_port = 18515;          // -p: one per rail so the rails run side by side
  std::string server;            // the server's address on the client side; "" on the server side
  std::uint64_t size_bytes = 0;  // -s; 0: perftest's default
  int iterations = 0;            // -n; 0: perftest's default
  std::string cuda_bus_id;  // --use_cuda_bus_id=<BDF> (GPU memory; bandwidth only), "" for host
  std::string json_file;    // --out_json --out_json_file=<file>, "" for none
  // --data_validation (ib_write_bw of perftest 26.04 and later, on both sides of a pair): the
  // server checks every byte written into its memory and prints a VALIDATION: line.
  bool data_validation = false;
};

// Whether `help_text` (ib_write_bw --help) offers --data_validation.
bool perftest_offers_data_validation(const std::string& help_text);

// Why `host` cannot be the server argument of a perftest client ("" when it can): empty, longer
// than a DNS name, not starting with a letter or digit (a leading '-' would be read as an option:
// "-h" or "--out_json_file=/etc/x"), or holding a character no host name or IP address has
// (letters, digits, '.', '-', '_' and, for IPv6, ':').
std::string perftest_peer_refusal(const std::string& host);

// The argument vector (no shell). Throws std::invalid_argument when `server` is refused by
// perftest_peer_refusal(), so no peer name reaches perftest's options.
std::vector<std::string> perftest_argv(const PerftestInvocation& invocation);

}  // namespace fabcheck
