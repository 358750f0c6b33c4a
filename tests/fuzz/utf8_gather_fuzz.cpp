// libFuzzer target: arbitrary bytes (invalid UTF-8 above all) as the strings of a Measurement, a
// Finding and an evidence file, through what a rank does with them at the end of a probe: encoded
// for the gather between ranks (record_wire), decoded on rank 0, then every JSON text written of
// them (measurements.jsonl, findings.jsonl, summary.json's node answers, junit.xml). Each must be
// produced without throwing and be valid UTF-8 (nlohmann's strict parser reads it back). It used
// to end in type_error.316, std::terminate, SIGABRT.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/core/record_wire.hpp"
#include "results/json_text.hpp"
#include "results/junit_writer.hpp"
#include "results/node_verdicts.hpp"
#include "results/record_json.hpp"

namespace {

// The next field: bytes up to a 0x00 separator (or the end).
std::string next_field(const std::uint8_t*& data, const std::uint8_t* end) {
  const std::uint8_t* start = data;
  while (data < end && *data != 0) ++data;
  std::string field(reinterpret_cast<const char*>(start), static_cast<std::size_t>(data - start));
  if (data < end) ++data;
  return field;
}

void must_read_back(const std::string& text) {
  const auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (parsed.is_discarded()) std::abort();  // not valid UTF-8 / not JSON: a bug
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fabcheck;
  const std::uint8_t* end = data + size;
  Measurement m;
  m.probe = next_field(data, end);
  m.metric = next_field(data, end);
  m.unit = next_field(data, end);
  m.host = next_field(data, end);     // a host name
  m.subject = next_field(data, end);  // a storage path, a device
  m.peer = next_field(data, end);
  m.params[next_field(data, end)] = next_field(data, end);
  m.message = next_field(data, end);  // a kernel-log line
  m.by_rank.push_back({1, next_field(data, end), 2.5});
  m.status = MeasurementStatus::error;
  Finding f = finding_about(m, Severity::fail);
  f.message = next_field(data, end);
  f.evidence = next_field(data, end);
  f.remedy = next_field(data, end);
  EvidenceFile file{next_field(data, end), next_field(data, end)};

  // The gather: encoded on the rank, decoded on rank 0.
  WireWriter out;
  wire_write(out, m);
  wire_write(out, f);
  wire_write(out, file);
  const std::string bytes = out.take();
  WireReader in(bytes);
  Measurement m2;
  Finding f2;
  EvidenceFile file2;
  wire_read(in, m2);
  wire_read(in, f2);
  wire_read(in, file2);
  if (in.remaining() != 0 || m2.host != m.host || f2.message != f.message) std::abort();

  // Every JSON text rank 0 writes of them.
  must_read_back(json_text(to_json(m2)));
  must_read_back(to_jsonl_line(to_json(f2)));
  const std::vector<Finding> findings = {f2};
  const std::vector<std::string> hosts = {m2.host, file2.name};
  const auto nodes = node_verdicts(findings, hosts, false);
  const nlohmann::json answers =
      node_answers_json(nodes, node_actions(nodes, findings, ""), findings);
  must_read_back(json_text(answers, 2));
  nlohmann::json summary = {{"kind", "summary"}, {"hosts", hosts}, {"run_dir", file2.text}};
  must_read_back(json_text(summary));
  (void)render_junit(findings, summary);
  return 0;
}
