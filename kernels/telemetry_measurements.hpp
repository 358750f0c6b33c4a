// GPU telemetry as measurements and back: the metrics gpu.health (idle) and gpu.gemm (under load)
// emit, and the GpuTelemetry the judgement rules rebuild from a run's measurements.
#pragma once

#include <optional>
#include <vector>

#include "bench/core/probe.hpp"
#include "bench/sys/gpu_telemetry.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// The telemetry metrics with units (C, MHz, W, GB, count) and directions, for Probe::metrics().
std::vector<MetricSpec> telemetry_metric_specs();

// One measurement per known figure of `telemetry`, under `probe`, subject "gpu<index>", params
// bus_id, model, uuid and phase (plus reasons / links / pids where they explain a number).
std::vector<Measurement> telemetry_to_measurements(const GpuTelemetry& telemetry,
                                                   const std::string& probe);

// Whether `metric` is one of the telemetry metrics.
bool is_telemetry_metric(const std::string& metric);

// Applies one telemetry measurement to `telemetry` (identity from its subject and params).
// Returns false for a measurement that is not telemetry.
bool apply_telemetry_measurement(const Measurement& measurement, GpuTelemetry& telemetry);

// The phase a measurement was taken in (params "phase"), idle when absent.
TelemetryPhase measurement_phase(const Measurement& measurement);

}  // namespace fabcheck
