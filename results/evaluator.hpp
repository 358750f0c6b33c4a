// Evaluator: measurements x profile -> findings (PASS / WARN / FAIL / WAIVED / ERROR).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "results/finding.hpp"
#include "results/measurement.hpp"
#include "results/profile.hpp"

namespace fabcheck {

// What the evaluator reads of a figure: a Measurement's fields, or a stored row's (fleet
// evaluation), without copying either. The strings must outlive the view.
struct FigureView {
  const std::string* probe = nullptr;
  const std::string* metric = nullptr;
  const std::string* subject = nullptr;
  const std::string* host = nullptr;
  double value = 0;
  std::optional<std::uint64_t> size;
  MeasurementStatus status = MeasurementStatus::ok;
  const std::string* backend_param = nullptr;  // params["backend"], nullptr when absent
  const std::string* hosts_param = nullptr;    // params["hosts"], nullptr when absent
  static FigureView of(const Measurement& measurement);
};

// The expectations that may judge a figure (those of its probe and metric, in profile order) and
// whether any [[path]] lists it.
struct FigureCandidates {
  std::vector<const Expectation*> expectations;
  bool on_path = false;
};

// A profile's expectations and [[path]]s by the figure (probe, metric) they judge, so that judging
// millions of figures looks each up once instead of scanning the profile. `profile` must outlive
// it.
class ProfileLookup {
 public:
  explicit ProfileLookup(const Profile& profile);
  const FigureCandidates& find(std::string_view probe, std::string_view metric) const;
  const Profile& profile() const { return profile_; }

 private:
  using Key = std::pair<std::string_view, std::string_view>;  // views of the profile's strings
  struct KeyHash {
    std::size_t operator()(const Key& key) const;
  };
  const Profile& profile_;
  std::unordered_map<Key, FigureCandidates, KeyHash> by_figure_;
  FigureCandidates none_;
};

// How many findings evaluate_measurement gives a figure when every one of them is a PASS (0 when
// nothing judges it), without building any; nullopt when it gives anything else (a WARN, a FAIL,
// an ERROR, a WAIVED), which only evaluate_measurement can word. Fleet evaluation counts the
// passing figures of millions this way and judges only the rest whole.
std::optional<std::size_t> count_passes(const FigureView& figure, const ProfileLookup& lookup);

// Judges one measurement. Rules, in order:
//  - status waived -> one WAIVED finding; status error -> one ERROR finding (message carried over);
//  - metric "wrong_elements" above 0 -> FAIL (data corruption; no profile needed to know that);
//  - every expectation whose probe, metric, size range and subject pattern match -> PASS / WARN /
//    FAIL by its thresholds (boundaries: observed == pass passes, observed == warn warns), with
//    the tier the figure matches in its message when a [[path]] lists the figure;
//  - a figure on a [[path]] that no expectation covers -> its tier finding (results/tiers.hpp):
//    FAIL below the path's expected tier, else PASS naming the tier it matches.
// A measurement nothing covers yields no finding.
std::vector<Finding> evaluate_measurement(const Measurement& measurement, const Profile& profile);

// evaluate_measurement over many figures, looking each figure's expectations and [[path]] up by
// probe and metric instead of scanning the profile for each.
std::vector<Finding> evaluate(const std::vector<Measurement>& measurements, const Profile& profile);

// One PASS per probe whose results were all verified with no wrong element (wrong_elements
// records, every one 0): checking data is a judgement, whatever the profile says of speed. A probe
// with any wrong element has its FAIL findings instead and gets no PASS here.
std::vector<Finding> verification_passes(const std::vector<Measurement>& measurements);

}  // namespace fabcheck
