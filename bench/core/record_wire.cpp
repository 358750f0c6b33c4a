// Measurement, Finding and EvidenceFile field by field on the wire; an enum out of range is
// refused.
#include "bench/core/record_wire.hpp"

#include <string>

namespace fabcheck {
namespace {

void check_status(MeasurementStatus status) {
  switch (status) {
    case MeasurementStatus::ok:
    case MeasurementStatus::error:
    case MeasurementStatus::waived:
      return;
  }
  throw WireError("typed data between ranks: a measurement status out of range");
}

void check_severity(Severity severity) {
  switch (severity) {
    case Severity::pass:
    case Severity::warn:
    case Severity::fail:
    case Severity::waived:
    case Severity::error:
      return;
  }
  throw WireError("typed data between ranks: a finding severity out of range");
}

}  // namespace

void wire_write(WireWriter& out, const SampleStats& stats) {
  wire_write(out, static_cast<std::uint64_t>(stats.count));
  for (const double value : {stats.min, stats.median, stats.max, stats.p99, stats.mean, stats.cv})
    wire_write(out, value);
}

void wire_read(WireReader& in, SampleStats& stats) {
  std::uint64_t count = 0;
  wire_read(in, count);
  stats.count = static_cast<std::size_t>(count);
  for (double* value : {&stats.min, &stats.median, &stats.max, &stats.p99, &stats.mean, &stats.cv})
    wire_read(in, *value);
}

void wire_write(WireWriter& out, const RankFigure& figure) {
  wire_write(out, figure.rank);
  wire_write(out, figure.host);
  wire_write(out, figure.value);
}

void wire_read(WireReader& in, RankFigure& figure) {
  wire_read(in, figure.rank);
  wire_read(in, figure.host);
  wire_read(in, figure.value);
}

void wire_write(WireWriter& out, const Measurement& m) {
  wire_write(out, m.probe);
  wire_write(out, m.metric);
  wire_write(out, m.value);
  wire_write(out, m.unit);
  wire_write(out, m.host);
  wire_write(out, m.rank);
  wire_write(out, m.subject);
  wire_write(out, m.peer);
  wire_write(out, m.size_bytes);
  wire_write(out, m.params);
  wire_write(out, m.stats);
  wire_write(out, m.by_rank);
  wire_write(out, m.status);
  wire_write(out, m.message);
  wire_write(out, m.time_utc);
}

void wire_read(WireReader& in, Measurement& m) {
  wire_read(in, m.probe);
  wire_read(in, m.metric);
  wire_read(in, m.value);
  wire_read(in, m.unit);
  wire_read(in, m.host);
  wire_read(in, m.rank);
  wire_read(in, m.subject);
  wire_read(in, m.peer);
  wire_read(in, m.size_bytes);
  wire_read(in, m.params);
  wire_read(in, m.stats);
  wire_read(in, m.by_rank);
  wire_read(in, m.status);
  check_status(m.status);
  wire_read(in, m.message);
  wire_read(in, m.time_utc);
}

void wire_write(WireWriter& out, const Finding& f) {
  wire_write(out, f.severity);
  wire_write(out, f.probe);
  wire_write(out, f.metric);
  wire_write(out, f.subject);
  wire_write(out, f.host);
  wire_write(out, f.rank);
  wire_write(out, f.size_bytes);
  wire_write(out, f.observed);
  wire_write(out, f.expected);
  wire_write(out, f.warn_at);
  wire_write(out, f.unit);
  wire_write(out, f.message);
  wire_write(out, f.evidence);
  wire_write(out, f.remedy);
  wire_write(out, f.source);
}

void wire_read(WireReader& in, Finding& f) {
  wire_read(in, f.severity);
  check_severity(f.severity);
  wire_read(in, f.probe);
  wire_read(in, f.metric);
  wire_read(in, f.subject);
  wire_read(in, f.host);
  wire_read(in, f.rank);
  wire_read(in, f.size_bytes);
  wire_read(in, f.observed);
  wire_read(in, f.expected);
  wire_read(in, f.warn_at);
  wire_read(in, f.unit);
  wire_read(in, f.message);
  wire_read(in, f.evidence);
  wire_read(in, f.remedy);
  wire_read(in, f.source);
}

void wire_write(WireWriter& out, const EvidenceFile& file) {
  wire_write(out, file.name);
  wire_write(out, file.text);
}

void wire_read(WireReader& in, EvidenceFile& file) {
  wire_read(in, file.name);
  wire_read(in, file.text);
}

}  // namespace fabcheck
