// The records that cross ranks, typed (wire.hpp): a Measurement (its stats, its per-rank figures),
// a Finding and an evidence file, every field as it is, doubles bit for bit (NaN included).
#pragma once

#include "bench/core/evidence.hpp"
#include "bench/core/wire.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

void wire_write(WireWriter& out, const SampleStats& stats);
void wire_read(WireReader& in, SampleStats& stats);
void wire_write(WireWriter& out, const RankFigure& figure);
void wire_read(WireReader& in, RankFigure& figure);
void wire_write(WireWriter& out, const Measurement& measurement);
void wire_read(WireReader& in, Measurement& measurement);
void wire_write(WireWriter& out, const Finding& finding);
void wire_read(WireReader& in, Finding& finding);
void wire_write(WireWriter& out, const EvidenceFile& file);
void wire_read(WireReader& in, EvidenceFile& file);

}  // namespace fabcheck
