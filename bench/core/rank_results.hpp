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
// gather. On the root, each figure, note and step is handed to `forward` as it comes (the
// progress); another rank keeps its notes to send with its measurements and drops its steps.
class CollectingSink final : public MeasurementSink {
 public:
  // Set all three on the root, none elsewhere.
  struct Forward {
    std::function<void(const Measurement&)> figure;
    std::function<void(const std::string&)> note;
    std::function<void(const ProgressStep&)> step;
  };
  CollectingSink(const World& world, Forward forward)
      : world_(world), forward_(std::move(forward)) {}
  void emit(Measurement measurement) override;
  void note(const std::string& text) override;
  void step(const ProgressStep& step) override;
  const RankResults& results() const { return results_; }

 private:
  const World& world_;
  Forward forward_;
  RankResults results_;
};

}  // namespace fabcheck
