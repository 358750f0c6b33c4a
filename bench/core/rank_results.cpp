// A rank's results of one probe: collected by the sink, encoded for the gather.
#include "bench/core/rank_results.hpp"

#include "bench/core/record_wire.hpp"
#include "bench/sys/timer.hpp"

namespace fabcheck {

void wire_write(WireWriter& out, const RankResults& results) {
  wire_write(out, results.notes);
  wire_write(out, results.measurements);
}

void wire_read(WireReader& in, RankResults& results) {
  wire_read(in, results.notes);
  wire_read(in, results.measurements);
}

void CollectingSink::emit(Measurement measurement) {
  if (measurement.host.empty()) {
    measurement.host = world_.host();
    measurement.rank = world_.rank();
  }
  if (measurement.time_utc.empty()) measurement.time_utc = utc_timestamp();
  if (forward_.figure) forward_.figure(measurement);
  results_.measurements.push_back(std::move(measurement));
}

void CollectingSink::note(const std::string& text) {
  if (forward_.note) {
    forward_.note(text);
  } else {
    results_.notes.push_back(text);
  }
}

void CollectingSink::step(const ProgressStep& step) {
  if (forward_.step) forward_.step(step);
}

}  // namespace fabcheck
