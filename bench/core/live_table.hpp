// LiveTable: a probe's console table printed row by row while the probe runs, from the figures
// the root emits (the collectives' row per size, as nccl-tests prints it when the size finishes).
#pragma once

#include <string>
#include <vector>

#include "results/measurement.hpp"

namespace fabcheck {

class LiveTable {
 public:
  virtual ~LiveTable() = default;
  // The figures the root emitted since the previous call, handed over when a step of the probe
  // ended (MeasurementSink::step) and at the probe's end: the lines they complete (the header
  // before the first row), possibly none.
  virtual std::string rows(const std::vector<Measurement>& figures) = 0;
  // After the last rows, every rank's gathered measurements: what the rows did not show (other
  // ranks' figures, errors) and the closing lines.
  virtual std::string closing(const std::vector<Measurement>& every_rank) = 0;
};

}  // namespace fabcheck
