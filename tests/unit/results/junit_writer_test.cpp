// Tests of junit.xml's content: one suite per probe in run order, FAIL/ERROR/WAIVED as
// failure/error/skipped with counts to match, stable case names, the run's own suite saying whether
// it finished, and escaping of hostile text. (Its shape against the JUnit XSD: tests/ops.)
#include "results/junit_writer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace fabcheck
