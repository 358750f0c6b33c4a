// The perftest command line for one rail of one node pair (server or client side).
#include "fabric/perftest_command.hpp"

#include <cctype>
#include <stdexcept>

namespace fabcheck {

const char* perftest_program(PerftestTool tool) {
  return tool == PerftestTool::write_bw ? "ib_write_bw" : "ib_write_lat";
}

std::string perftest_peer_refusal(const std::string& host) {
  if (host.empty()) return "an empty host name";
  if (host.size() > 253) return "longer than any host name (253 characters)";
  if (!std::isalnum(static_cast<unsigned char>(host.front())) && host.front() != ':')
    return "does not start with a letter or digit (perftest would read it as an option)";
  for (const char c : host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_' &&
        c != ':')
      return "has characters a host name cannot have";
  }
  return "";
}

bool perftest_offers_data_validation(const std::string& help_text) {
  return help_text.find("--data_validation ") != std::string::npos ||
         help_text.find("--data_validation\n") != std::string::npos;
}

std::vector<std::string> perftest_argv(const PerftestInvocation& in) {
  if (!in.server.empty()) {
    const std::string refusal = perftest_peer_refusal(in.server);
    if (!refusal.empty())
      throw std::invalid_argument("perftest peer \"" + in.server + "\" refused: " + refusal);
  }
  std::vector<std::string> argv{
      perftest_program(in.tool),   "-d", in.hca, "-i", std::to_string(in.ib_port), "-p",
      std::to_string(in.tcp_port), "-F"};  // -F: do not fail when the CPU frequency governor varies
  if (in.size_bytes > 0) {
    argv.insert(argv.end(), {"-s", std::to_string(in.size_bytes)});
  }
  if (in.iterations > 0) argv.insert(argv.end(), {"-n", std::to_string(in.iterations)});
  if (in.tool == PerftestTool::write_bw) {
    argv.push_back("--report_gbits");
    // ib_write_lat refuses CUDA memory without --write_with_imm; latency stays on host memory.
    if (!in.cuda_bus_id.empty()) argv.push_back("--use_cuda_bus_id=" + in.cuda_bus_id);
    if (in.data_validation) argv.push_back("--data_validation");
  }
  if (!in.json_file.empty()) {
    argv.push_back("--out_json");
    argv.push_back("--out_json_file=" + in.json_file);
  }
  if (!in.server.empty()) argv.push_back(in.server);
  return argv;
}

}  // namespace fabcheck
