// The facts of an NCCL log as fabric.nccl_transport's measurements and back: the counts as figures,
// the quoted lines as params, so the run's judge rebuilds the facts from a run's records.
#pragma once

#include <string>
#include <vector>

#include "fabric/nccl_log.hpp"
#include "fabric/nccl_transport_facts.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// The counts as measurements of `probe` (socket_channels, inter_node_socket_channels, ib_channels,
// gdr_channels, ib_channels_without_gdr, p2p_channels, shm_channels, intra_node_non_p2p_channels,
// unrecognised_lines), subject `subject`; every record carries the facts' lines as params, so the
// run's judge can rebuild the facts from them.
std::vector<Measurement> nccl_transport_measurements(const NcclLog& log, const std::string& probe,
                                                     const std::string& subject);

// The facts back from one group of those measurements (one probe subject, one host).
NcclTransportFacts nccl_transport_facts_from(const std::vector<const Measurement*>& group);

}  // namespace fabcheck
