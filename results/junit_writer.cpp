// junit.xml: findings grouped into one test suite per probe, escaped for XML 1.0.
#include "results/junit_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "results/record_json.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

// The length of the UTF-8 sequence starting at `lead` in valid UTF-8 (valid_utf8's output).
std::size_t utf8_length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// XML 1.0's Char production: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
// [#x10000-#x10FFFF].
bool xml_char(std::uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

}  // namespace

// Valid UTF-8 with every character XML 1.0 refuses (C0 controls but tab, newline and carriage
// return, surrogates, U+FFFE and U+FFFF) replaced by U+FFFD, and markup escaped; newlines kept in
// text, encoded in attributes.
std::string xml_escape(const std::string& raw, bool attribute) {
  const std::string text = valid_utf8(raw);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = std::min(utf8_length(lead), text.size() - i);
    std::uint32_t code = length == 1 ? lead : lead & (0x7F >> length);
    for (std::size_t k = 1; k < length; ++k)
      code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    const char c = text[i];
    if (!xml_char(code)) {
      out += "\xEF\xBF\xBD";
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '"' && attribute) {
      out += "&quot;";
    } else if ((c == '\n' || c == '\r' || c == '\t') && attribute) {
      out += fmt::format("&#{};", static_cast<int>(lead));
    } else {
      out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

namespace {

std::string attr(const char* name, const std::string& value) {
  return fmt::format(" {}=\"{}\"", name, xml_escape(value, true));
}

std::string text_of(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string seconds_text(double seconds) {
  return fmt::format("{:.3f}", seconds < 0 ? 0 : seconds);
}

// What a finding judged, stable from run to run (no figures in it).
std::string case_name(const Finding& f) {
  std::string name;
  if (!f.host.empty()) name = f.host + ": ";
  std::string what = f.subject;
  if (!f.metric.empty()) what += (what.empty() ? "" : " ") + f.metric;
  if (what.empty()) what = f.probe.empty() ? "run" : f.probe;
  name += what;
  if (f.size_bytes) name += " @ " + format_bytes(*f.size_bytes);
  return name;
}

// The body of a failure or error: the message, then evidence and remedy when there are any.
std::string detail_of(const Finding& f) {
  std::string text = f.message;
  if (f.observed && f.expected) {
    text += fmt::format("\nobserved {} {}, expected {} {}", f.observed.value(), f.unit,
                        f.expected.value(), f.unit);
  }
  if (!f.evidence.empty()) text += "\nevidence: " + f.evidence;
  if (!f.remedy.empty()) text += "\nremedy: " + f.remedy;
  if (!f.source.empty()) text += "\nsource: " + f.source;
  return text;
}

struct Case {
  std::string name;
  std::string classname;
  std::string outcome;  // "", "failure", "error", "skipped"
  std::string message;  // the outcome's message attribute
  std::string body;     // the outcome's text
  std::string out;      // <system-out>
};

struct Suite {
  std::string name;
  std::vector<Case> cases;
  double seconds = 0;
  std::map<std::string, int> names;  // to tell repeated case names apart
  void add(Case c) {
    const int seen = ++names[c.name];
    if (seen > 1) c.name += fmt::format(" ({})", seen);
    cases.push_back(std::move(c));
  }
  int count(const std::string& outcome) const {
    int n = 0;
    for (const Case& c : cases) n += c.outcome == outcome;
    return n;
  }
};

Case case_of(const Finding& f) {
  Case c;
  c.name = case_name(f);
  c.classname = "fabcheck." + (f.probe.empty() ? std::string("run") : f.probe);
  switch (f.severity) {
    case Severity::fail:
      c.outcome = "failure";
      c.message = f.message;
      c.body = detail_of(f);
      break;
    case Severity::error:
      c.outcome = "error";
      c.message = f.message;
      c.body = detail_of(f);
      break;
    case Severity::waived:
      c.outcome = "skipped";
      c.message = f.message;
      break;
    case Severity::warn:
      c.out = "WARN: " + detail_of(f);
      break;
    case Severity::pass:
      c.out = f.message;
      break;
  }
  return c;
}

std::string render_suite(const Suite& suite, const std::string& timestamp,
                         const std::string& hostname, const std::string& properties) {
  std::string out = "  <testsuite" + attr("name", suite.name) +
                    attr("tests", std::to_string(suite.cases.size())) +
                    attr("failures", std::to_string(suite.count("failure"))) +
                    attr("errors", std::to_string(suite.count("error"))) +
                    attr("skipped", std::to_string(suite.count("skipped"))) +
                    attr("time", seconds_text(suite.seconds)) + attr("timestamp", timestamp) +
                    attr("hostname", hostname) + ">\n";
  out += properties;
  for (const Case& c : suite.cases) {
    out += "    <testcase" + attr("name", c.name) + attr("classname", c.classname) +
           attr("time", "0.000");
    if (c.outcome.empty() && c.out.empty()) {
      out += "/>\n";
      continue;
    }
    out += ">\n";
    if (c.outcome == "skipped") {
      out += "      <skipped" + attr("message", c.message) + "/>\n";
    } else if (!c.outcome.empty()) {
      out += "      <" + c.outcome + attr("message", c.message) +
             attr("type", c.outcome == "failure" ? "FAIL" : "ERROR") + ">" +
             xml_escape(c.body, false) + "</" + c.outcome + ">\n";
    }
    if (!c.out.empty()) out += "      <system-out>" + xml_escape(c.out, false) + "</system-out>\n";
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n";
  return out;
}

}  // namespace

std::string render_junit(const std::vector<Finding>& findings, const nlohmann::json& summary) {
  const std::string plan = text_of(summary, "plan");
  const std::string started = [&] {
    // JUnit's timestamp is ISO 8601 without a zone; the summary's is UTC with a "Z".
    std::string text = text_of(summary, "started_utc");
    if (!text.empty() && text.back() == 'Z') text.pop_back();
    return text.empty() ? std::string("1970-01-01T00:00:00") : text;
  }();
  std::string hosts;
  if (const auto it = summary.find("hosts"); it != summary.end() && it->is_array()) {
    for (const auto& host : *it) {
      if (host.is_string()) hosts += (hosts.empty() ? "" : ",") + host.get<std::string>();
    }
  }
  const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json& probes =
      summary.contains("probes") && summary["probes"].is_object() ? summary["probes"] : empty;
  std::map<std::string, double> seconds;
  double wall_s = 0;
  if (const auto it = summary.find("timing"); it != summary.end() && it->is_object()) {
    wall_s = it->value("wall_s", 0.0);
    if (const auto p = it->find("probes"); p != it->end() && p->is_array()) {
      for (const auto& entry : *p) {
        if (entry.is_object() && entry.contains("id") && entry["id"].is_string())
          seconds[entry["id"].get<std::string>()] += entry.value("seconds", 0.0);
      }
    }
  }

  // Suites in the order the probes ran, then waived ones, then any other a finding names.
  std::vector<std::string> order;
  std::map<std::string, Suite> suites;
  auto suite_for = [&](const std::string& probe) -> Suite& {
    auto [it, added] = suites.try_emplace(probe);
    if (added) {
      it->second.name = probe;
      it->second.seconds = seconds.count(probe) ? seconds[probe] : 0;
      order.push_back(probe);
    }
    return it->second;
  };
  std::set<std::string> errored;
  if (const auto run = probes.find("run"); run != probes.end() && run->is_array()) {
    for (const auto& id : *run) {
      if (id.is_string()) suite_for(id.get<std::string>());
    }
  }
  for (const Finding& f : findings) suite_for(f.probe.empty() ? "run" : f.probe).add(case_of(f));
  if (const auto waived = probes.find("waived"); waived != probes.end() && waived->is_array()) {
    for (const auto& entry : *waived) {
      const std::string id = text_of(entry, "id");
      if (id.empty()) continue;
      Suite& suite = suite_for(id);
      if (suite.count("skipped") == 0) {
        suite.add(
            {id, "fabcheck." + id, "skipped", id + " waived: " + text_of(entry, "reason"), "", ""});
      }
    }
  }
  if (const auto list = probes.find("errored"); list != probes.end() && list->is_array()) {
    for (const auto& entry : *list) {
      const std::string id = text_of(entry, "id");
      if (id.empty()) continue;
      Suite& suite = suite_for(id);
      if (suite.count("error") == 0) {
        const std::string message = id + " errored: " + text_of(entry, "message");
        suite.add({id + " ran to its end", "fabcheck." + id, "error", message, message, ""});
      }
    }
  }
  for (auto& [id, suite] : suites) {
    if (suite.cases.empty()) {
      suite.add({id, "fabcheck." + id, "skipped",
                 "measured, not judged: no expectation or rule covers what " + id + " measured", "",
                 ""});
    }
  }

  // The run itself: its properties, and whether it finished.
  Suite run;
  run.name = "fabcheck.run";
  run.seconds = wall_s;
  const std::string incomplete = text_of(summary, "incomplete_reason");
  const std::string verdict = text_of(summary, "verdict");
  Case completed{"run completed", "fabcheck.run", "", "", "", ""};
  if (!incomplete.empty() || verdict == "incomplete") {
    completed.outcome = "error";
    completed.message = "incomplete: " + (incomplete.empty() ? verdict : incomplete);
    completed.body = completed.message;
  }
  run.add(completed);
  std::string properties = "    <properties>\n";
  auto property = [&](const char* name, const std::string& value) {
    properties += "      <property" + attr("name", name) + attr("value", value) + "/>\n";
  };
  property("plan", plan);
  property("verdict", verdict);
  if (const auto it = summary.find("exit_code"); it != summary.end() && it->is_number_integer())
    property("exit_code", std::to_string(it->get<int>()));
  if (const auto it = summary.find("profile"); it != summary.end() && it->is_object())
    property("profile", text_of(*it, "name"));
  property("hosts", hosts);
  property("run_dir", text_of(summary, "run_dir"));
  property("fabcheck_version", text_of(summary, "fabcheck_version"));
  property("command_line", text_of(summary, "command_line"));
  properties += "    </properties>\n";

  int tests = 0;
  int failures = 0;
  int errors = 0;
  int skipped = 0;
  std::string body = render_suite(run, started, hosts, properties);
  tests += static_cast<int>(run.cases.size());
  errors += run.count("error");
  for (const std::string& id : order) {
    const Suite& suite = suites[id];
    body += render_suite(suite, started, hosts, "");
    tests += static_cast<int>(suite.cases.size());
    failures += suite.count("failure");
    errors += suite.count("error");
    skipped += suite.count("skipped");
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites" +
         attr("name", "fabcheck " + (plan.empty() ? std::string("run") : plan)) +
         attr("tests", std::to_string(tests)) + attr("failures", std::to_string(failures)) +
         attr("errors", std::to_string(errors)) + attr("skipped", std::to_string(skipped)) +
         attr("time", seconds_text(wall_s)) + ">\n" + body + "</testsuites>\n";
}

}  // namespace fabcheck
