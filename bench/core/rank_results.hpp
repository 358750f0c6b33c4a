// What one rank's run of a probe produced, and the sink that collects it: its measurements
// (stamped with the rank's host, rank and time) and its notes, gathered to the root as one typed
// value (record_wire.hpp), never as text parsed back.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"
#include "bench/core/wire.hpp"
#include "bench/core/world.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

struct RankResults {
  std::vector<std::string> notes;  // the ones the root did not already hand on as they came
  std::vector<Measurement> measurements;
};

void wire_write(WireWriter& out, const RankResults& results);
void wire_read(WireReader& in, RankResults& results);

// Stamps this rank's host, rank and the time on its own measurements and keeps them for the
// gather. On the root, each figure and note is handed to `forward` as it comes (the progress);
// another rank keeps its notes to send with its measurements.
class CollectingSink final : public MeasurementSink {
 public:
  using Forward = std::function<void(const Measurement* figure, const std::string* note)>;
  CollectingSink(const World& world, Forward forward)
      : world_(world), forward_(std::move(forward)) {}
  void emit(Measurement measurement) override;
  void note(const std::string& text) override;
  const RankResults& results() const { return results_; }

 private:
  const World& world_;
  Forward forward_;
  RankResults results_;
};

}  // namespace fabcheck
