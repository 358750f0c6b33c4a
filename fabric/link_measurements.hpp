// Fabric state (PCIe links, IB ports, counter changes) as Measurement records, and their metrics.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"
#include "fabric/ib_port.hpp"
#include "fabric/pcie_link.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

inline constexpr const char* kPcieLinksProbe = "fabric.pcie_links";
inline constexpr const char* kIbPortsProbe = "fabric.ib_ports";
inline constexpr const char* kIbCountersProbe = "fabric.ib_counters";

std::vector<MetricSpec> pcie_link_metrics();
std::vector<MetricSpec> ib_port_metrics();
std::vector<MetricSpec> ib_counter_metrics();

// Per device (subject = BDF): <kind>_link_gen, <kind>_link_width, link_gen_deficit,
// link_width_deficit, aer_* totals; params kind, current, max, upstream_port, driver. A GPU read
// while idle (`gpus_under_load` false) reports its generation shortfall as idle_link_gen_deficit,
// since GPUs lower their link speed when idle. A device without link state gives one WAIVED record.
std::vector<Measurement> pcie_link_measurements(const std::vector<PcieLinkState>& links,
                                                bool gpus_under_load);

// active_ports (subject "node"), and per port (subject "mlx5_0/1") port_active, port_rate and
// saturated_counters. With no port at all, also one WAIVED port_active record: "no RDMA device".
std::vector<Measurement> ib_port_measurements(const std::vector<IbPortState>& ports);

// error_counter_delta per port between two snapshots (subject "mlx5_0/1"); params name each
// counter that grew ("counters/symbol_error": "+12"), reset or saturated.
std::vector<Measurement> ib_counter_measurements(
    const std::map<std::string, CounterSnapshot>& before,
    const std::map<std::string, CounterSnapshot>& after, double interval_s);

// What grew between two readings around a heavy probe: error_counter_delta for ports whose error
// counters grew, reset or sit saturated, and congestion_counter_delta (RoCE ECN/CNP) for ports
// whose congestion counters grew; ports where nothing changed give no record.
std::vector<Measurement> ib_counter_growth(const std::map<std::string, CounterSnapshot>& before,
                                           const std::map<std::string, CounterSnapshot>& after,
                                           double interval_s);

// One ERROR record per sysfs value that was there but could not be read or understood (subject:
// its path; metric: `metric`, one the probe declares), so that it is reported, never taken for a
// healthy value.
std::vector<Measurement> sysfs_problem_measurements(const char* probe, const char* metric,
                                                    const std::vector<SysfsProblem>& problems);

// What fabric.pcie_links and inventory report: pcie_link_measurements, and one ERROR per value that
// could not be read or understood; a device with such a value is not also called "no link state".
std::vector<Measurement> pcie_link_records(const std::vector<PcieLinkState>& links,
                                           bool gpus_under_load,
                                           const std::vector<SysfsProblem>& problems);

// What fabric.ib_ports and inventory report: ib_port_measurements and one ERROR per problem; when
// the ports could not all be read, neither "no RDMA device" nor a count of active ports is given
// (the count is unknown, not zero).
std::vector<Measurement> ib_port_records(const std::vector<IbPortState>& ports,
                                         const std::vector<SysfsProblem>& problems);

}  // namespace fabcheck
