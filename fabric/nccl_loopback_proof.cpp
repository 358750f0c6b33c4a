// Reads a probe's own NCCL logs on one host and says whether any channel avoided the network.
#include "fabric/nccl_loopback_proof.hpp"

#include <fmt/format.h>

#include <exception>

#include "bench/core/nccl_log_files.hpp"
#include "fabric/nccl_log.hpp"
#include "fabric/nccl_transport_facts.hpp"

namespace fabcheck {

std::string network_only_log_problem(const std::filesystem::path& log_dir, const std::string& probe,
                                     const std::string& host) {
  try {
    const auto groups = nccl_logs_by_probe(log_dir, host);
    const auto found = groups.find(probe);
    if (found == groups.end() || found->second.empty()) {
      return fmt::format(
          "no NCCL log of {} from {} in {}: which transports it used cannot be shown", probe, host,
          log_dir.string());
    }
    const NcclLog log = read_nccl_logs(found->second);
    const NcclTransportSummary summary = summarise_nccl_transports(log);
    if (summary.connections == 0) {
      return fmt::format(
          "the NCCL log of {} from {} holds no Channel lines: which transports it used cannot be "
          "shown ({})",
          probe, host, fmt::join(found->second, ", "));
    }
    if (summary.p2p + summary.shm == 0) return {};
    std::string first;
    for (const NcclConnection& connection : log.connections) {
      if (connection.transport == NcclTransport::p2p ||
          connection.transport == NcclTransport::shm) {
        first = connection.source.describe();
        break;
      }
    }
    return fmt::format(
        "NCCL connected {} channel(s) over P2P and {} over SHM on {} although the probe set "
        "NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1: its traffic did not all cross the NICs, so "
        "its figures are not the NICs' (first: {})",
        summary.p2p, summary.shm, host, first);
  } catch (const std::exception& error) {
    return fmt::format("the NCCL log of {} from {} could not be read: {}", probe, host,
                       error.what());
  }
}

}  // namespace fabcheck
