// Tests of junit.xml's content: one suite per probe in run order, FAIL/ERROR/WAIVED as
// failure/error/skipped with counts to match, stable case names, the run's own suite saying whether
// it finished, and escaping of hostile text. (Its shape against the JUnit XSD: tests/ops.)
#include "results/junit_writer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <random>

namespace fabcheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Finding finding(Severity severity, const std::string& probe, const std::string& message) {
  Finding f;
  f.severity = severity;
  f.probe = probe;
  f.metric = "link_width";
  f.subject = "GPU 3 (0000:9a:00.0)";
  f.host = "node07";
  f.message = message;
  f.remedy = "drain node07: " + message;
  return f;
}

nlohmann::json summary() {
  return {{"plan", "gate"},
          {"verdict", "fail"},
          {"exit_code", 1},
          {"hosts", {"node07", "node08"}},
          {"started_utc", "2026-11-30T06:09:26Z"},
          {"run_dir", "/runs/r1"},
          {"profile", {{"name", "h100-sxm-8"}}},
          {"probes",
           {{"run", {"fabric.pcie_links", "coll.all_reduce", "storage.seq_read"}},
            {"waived", {{{"id", "gpu.p2p"}, {"reason", "no GPU"}}}},
            {"errored", {{{"id", "storage.seq_read"}, {"message", "EIO"}}}}}},
          {"timing",
           {{"wall_s", 12.5}, {"probes", {{{"id", "fabric.pcie_links"}, {"seconds", 0.25}}}}}}};
}

TEST(JunitWriter, ProbesAreSuitesAndFindingsAreCasesWithMatchingCounts) {
  const std::vector<Finding> findings = {
      finding(Severity::fail, "fabric.pcie_links", "GPU 3 (0000:9a:00.0) at Gen4 x8"),
      finding(Severity::pass, "fabric.pcie_links", "GPU 4 ok"),
      finding(Severity::warn, "coll.all_reduce", "a little slow"),
      finding(Severity::waived, "gpu.p2p", "gpu.p2p waived: no GPU"),
  };
  const std::string xml = render_junit(findings, summary());
  EXPECT_THAT(xml, HasSubstr("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
  EXPECT_THAT(xml, HasSubstr("<testsuites name=\"fabcheck gate\" tests=\"6\" failures=\"1\" "
                             "errors=\"1\" skipped=\"1\" time=\"12.500\">"));
  // Run order: the run's own suite, then the probes as they ran, then the waived one.
  const auto run = xml.find("name=\"fabcheck.run\"");
  const auto pcie = xml.find("<testsuite name=\"fabric.pcie_links\"");
  const auto coll = xml.find("<testsuite name=\"coll.all_reduce\"");
  const auto storage = xml.find("<testsuite name=\"storage.seq_read\"");
  const auto waived = xml.find("<testsuite name=\"gpu.p2p\"");
  ASSERT_NE(waived, std::string::npos);
  EXPECT_LT(run, pcie);
  EXPECT_LT(pcie, coll);
  EXPECT_LT(coll, storage);
  EXPECT_LT(storage, waived);
  EXPECT_THAT(xml, HasSubstr("<testsuite name=\"fabric.pcie_links\" tests=\"2\" failures=\"1\" "
                             "errors=\"0\" skipped=\"0\" time=\"0.250\" "
                             "timestamp=\"2026-11-30T06:09:26\" hostname=\"node07,node08\">"));
  // The case name says what was judged, without figures, so it is the same run after run.
  EXPECT_THAT(xml, HasSubstr("<testcase name=\"node07: GPU 3 (0000:9a:00.0) link_width\" "
                             "classname=\"fabcheck.fabric.pcie_links\""));
  EXPECT_THAT(xml, HasSubstr("<failure message=\"GPU 3 (0000:9a:00.0) at Gen4 x8\" type=\"FAIL\">"
                             "GPU 3 (0000:9a:00.0) at Gen4 x8\nremedy: drain node07: GPU 3"));
  EXPECT_THAT(xml, HasSubstr("<system-out>WARN: a little slow"));
  EXPECT_THAT(xml, HasSubstr("<skipped message=\"gpu.p2p waived: no GPU\"/>"));
  EXPECT_THAT(xml, HasSubstr("<error message=\"storage.seq_read errored: EIO\" type=\"ERROR\">"));
  EXPECT_THAT(xml, HasSubstr("<property name=\"verdict\" value=\"fail\"/>"));
  EXPECT_THAT(xml, HasSubstr("<testcase name=\"run completed\" classname=\"fabcheck.run\" "
                             "time=\"0.000\"/>"));
  // Two findings with the same name stay two cases.
  const std::vector<Finding> twice = {finding(Severity::pass, "fabric.pcie_links", "a"),
                                      finding(Severity::pass, "fabric.pcie_links", "b")};
  EXPECT_THAT(render_junit(twice, summary()), HasSubstr("link_width (2)\""));
}

TEST(JunitWriter, AnIncompleteRunIsAnErrorAndAProbeJudgedByNothingIsSkipped) {
  nlohmann::json s = summary();
  s["verdict"] = "incomplete";
  s["incomplete_reason"] = "rank 1 (node08) stopped";
  s["probes"]["run"] = {"coll.all_reduce"};
  s["probes"]["waived"] = nlohmann::json::array();
  s["probes"]["errored"] = nlohmann::json::array();
  const std::string xml = render_junit({}, s);
  EXPECT_THAT(xml, HasSubstr("<error message=\"incomplete: rank 1 (node08) stopped\""));
  EXPECT_THAT(xml, HasSubstr("<skipped message=\"measured, not judged"));
  EXPECT_THAT(xml, HasSubstr("tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"1\""));
}

TEST(JunitWriter, HostileTextIsEscapedAndMadeValidXml) {
  Finding f = finding(Severity::fail, "storage.seq_write", "<b>&\"quoted\"\n'x'\x01\xff]]>");
  f.host = "node\"7<";
  const std::string xml = render_junit({f}, summary());
  EXPECT_THAT(xml, HasSubstr("message=\"&lt;b&gt;&amp;&quot;quoted&quot;&#10;'x'"
                             "\xEF\xBF\xBD\xEF\xBF\xBD]]&gt;\""));
  EXPECT_THAT(xml, HasSubstr("name=\"node&quot;7&lt;: GPU 3"));
  EXPECT_THAT(xml, Not(HasSubstr("\x01")));
  EXPECT_THAT(xml, Not(HasSubstr("]]>")));
}

// XML 1.0's Char production, decoded from UTF-8: false on anything else (invalid UTF-8 included).
bool well_formed_xml_chars(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = lead < 0x80         ? 1
                         : (lead >> 5) == 6  ? 2
                         : (lead >> 4) == 14 ? 3
                         : (lead >> 3) == 30 ? 4
                                             : 0;
    if (length == 0 || i + length > text.size()) return false;
    std::uint32_t code = length == 1 ? lead : lead & (0x7F >> length);
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    const bool allowed = code == 0x9 || code == 0xA || code == 0xD ||
                         (code >= 0x20 && code <= 0xD7FF) || (code >= 0xE000 && code <= 0xFFFD) ||
                         (code >= 0x10000 && code <= 0x10FFFF);
    if (!allowed) return false;
    i += length;
  }
  return true;
}

// U+FFFE, U+FFFF (valid UTF-8, not XML 1.0), a CESU surrogate and C0 controls: replaced.
TEST(JunitWriter, CharactersXml10RefusesAreReplaced) {
  Finding f = finding(Severity::fail, "node.kernel_log",
                      "a\xEF\xBF\xBE"
                      "b\xEF\xBF\xBF"
                      "c\xED\xA0\x80"
                      "d\x1F"
                      "e\x7F"
                      "f");
  f.host =
      "node\xEF\xBF\xBF"
      "07";
  const std::string xml = render_junit({f}, summary());
  EXPECT_TRUE(well_formed_xml_chars(xml));
  EXPECT_THAT(xml, Not(HasSubstr("\xEF\xBF\xBE")));
  EXPECT_THAT(xml, Not(HasSubstr("\xEF\xBF\xBF")));
  EXPECT_THAT(xml, HasSubstr("a\xEF\xBF\xBD"
                             "b\xEF\xBF\xBD"
                             "c"));
}

// Property: whatever bytes a finding or the summary carries, every character of junit.xml is one
// XML 1.0 allows (2000 random strings, biased to the bytes that make U+FFFE/U+FFFF and surrogates).
TEST(JunitWriter, RandomBytesAlwaysGiveXml10Characters) {
  std::mt19937 random(23);
  const unsigned char interesting[] = {0xEF, 0xBF, 0xBE, 0xBD, 0xED, 0xA0, 0x80, 0x00, 0x01,
                                       0x1F, 0x7F, 0xC0, 0xF4, 0x8F, '<',  '&',  '"',  ']'};
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    const int length = static_cast<int>(random() % 24);
    for (int i = 0; i < length; ++i) {
      text += random() % 2 ? static_cast<char>(interesting[random() % sizeof interesting])
                           : static_cast<char>(random() % 256);
    }
    Finding f = finding(Severity::error, "probe." + text, text);
    f.host = text;
    f.subject = text;
    nlohmann::json s = summary();
    s["hosts"] = {text};
    const std::string xml = render_junit({f}, s);
    ASSERT_TRUE(well_formed_xml_chars(xml)) << "round " << round;
    ASSERT_TRUE(well_formed_xml_chars(xml_escape(text, true))) << "round " << round;
  }
}

}  // namespace
}  // namespace fabcheck
