// The collectives' console table: figures grouped into rows per size, placements side by side.
#include "bench/coll/sweep_table.hpp"

#include <fmt/format.h>

#include <compare>
#include <map>
#include <optional>
#include <utility>

#include "bench/core/measurement_table.hpp"

namespace fabcheck {
namespace {

// The columns of one placement and the size's columns before them.
constexpr const char* kSizeColumns = "#{:>12} {:>12} {:>7} {:>6} {:>5}";
constexpr const char* kPlacementColumns = " {:>9} {:>9} {:>7} {:>7} {:>6}";
constexpr int kSizeWidth = 1 + 12 + 1 + 12 + 1 + 7 + 1 + 6 + 1 + 5;
constexpr int kPlacementWidth = 1 + 9 + 1 + 9 + 1 + 7 + 1 + 7 + 1 + 6;

// A figure of the table's rows: one of a size and placement (the root's world figures; the
// per-rank arrival figures it also emits carry the same and are not shown).
bool table_figure(const Measurement& m) {
  return m.size_bytes && m.params.contains("count") && m.params.contains("placement");
}

Placement placement_of(const Measurement& m) {
  return m.params.at("placement") == "in" ? Placement::in_place : Placement::out_of_place;
}

// The figures of one size and placement read back as the engine made them.
struct PlacedRow {
  SweepRow row;
  bool busbw_applies = true;  // not waived (one rank: nothing crosses a link)
};

class SweepLiveTable final : public LiveTable {
 public:
  explicit SweepLiveTable(const Collective& collective) : collective_(collective) {}

  // The placements shown are the first size's (a backend supports a placement at every size or
  // at none).
  std::string rows(const std::vector<Measurement>& figures) override {
    // Sizes in the order their first figure came, each placement's figures together; a host-scoped
    // sweep (one world a host) has each host's rows, under a line naming the host; each type and
    // redop (its own sweep) its rows, under a header of their own.
    std::vector<RowKey> order;
    std::map<RowKey, std::map<Placement, PlacedRow>> by_size;
    for (const Measurement& m : figures) {
      if (!table_figure(m)) continue;
      const RowKey key{m.host, param_or(m, "type", "float"), param_or(m, "redop", ""),
                       *m.size_bytes};
      if (!by_size.contains(key)) order.push_back(key);
      fill(by_size[key][placement_of(m)], m);
    }
    std::string text;
    for (const RowKey& key : order) {
      const auto& placed = by_size[key];
      const std::pair<std::string, std::string> combination{key.type, key.redop};
      if (!header_) {
        for (const auto& [placement, row] : placed) placements_.push_back(placement);
        text += sweep_table_header(placements_);
        header_ = true;
      } else if (combination_ != combination) {
        text += sweep_table_header(placements_);
        host_.reset();
      }
      combination_ = combination;
      if (!host_.has_value() || *host_ != key.host) {
        if (host_.has_value()) text += "# " + key.host + "\n";
        host_ = key.host;
      }
      std::vector<const SweepRow*> shown;
      for (const Placement placement : placements_) {
        const auto it = placed.find(placement);
        shown.push_back(it == placed.end() ? nullptr : &it->second.row);
        if (it == placed.end()) continue;
        wrong_total_ += it->second.row.wrong_total;
        if (it->second.busbw_applies) busbw_.push_back(it->second.row.busbw_gbps);
      }
      const std::string redop =
          key.redop.empty() ? (collective_.expected.reduced ? "sum" : "none") : key.redop;
      text += sweep_table_row(collective_, key.type, redop, placements_, shown);
    }
    return text;
  }

  std::string closing(const std::vector<Measurement>& every_rank) override {
    std::vector<Measurement> others;
    for (const Measurement& m : every_rank) {
      if (!table_figure(m)) others.push_back(m);
    }
    std::string text;
    if (!others.empty()) text += measurement_table(others.front().probe, others);
    if (!header_) return text;
    text +=
        fmt::format("# #wrong (elements unlike the expected result, every size and rank): {}{}\n",
                    wrong_total_, wrong_total_ == 0 ? " OK" : " WRONG");
    if (busbw_.empty()) {
      text += "# Avg bus bandwidth    : - (no bus bandwidth applies on one rank)\n";
    } else {
      double sum = 0;
      for (const double value : busbw_) sum += value;
      text += fmt::format("# Avg bus bandwidth    : {:.3f} GB/s (mean of {} row(s))\n",
                          sum / static_cast<double>(busbw_.size()), busbw_.size());
    }
    return text;
  }

 private:
  // A row's figures: one size of one host, type and redop (records from before --dtype have no
  // redop: their sum or none follows from the entry).
  struct RowKey {
    std::string host;
    std::string type;
    std::string redop;
    std::uint64_t size = 0;
    auto operator<=>(const RowKey&) const = default;
  };

  static std::string param_or(const Measurement& m, const char* key, const char* otherwise) {
    const auto found = m.params.find(key);
    return found == m.params.end() ? otherwise : found->second;
  }

  static void fill(PlacedRow& placed, const Measurement& m) {
    SweepRow& row = placed.row;
    row.shape.size_bytes = *m.size_bytes;
    row.shape.count = std::stoull(m.params.at("count"));
    row.placement = placement_of(m);
    if (m.metric == "time_us") {
      row.time_us.median = m.value;
      if (m.stats) row.time_us = *m.stats;
    } else if (m.metric == "algbw") {
      row.algbw_gbps = m.value;
    } else if (m.metric == "busbw") {
      row.busbw_gbps = m.value;
      placed.busbw_applies = m.status != MeasurementStatus::waived;
    } else if (m.metric == "wrong_elements") {
      row.wrong_total = static_cast<std::uint64_t>(m.value);
    }
  }

  const Collective& collective_;
  bool header_ = false;
  std::vector<Placement> placements_;
  std::uint64_t wrong_total_ = 0;
  std::vector<double> busbw_;
  std::optional<std::string> host_;                  // the host of the rows last shown
  std::pair<std::string, std::string> combination_;  // the type and redop of the rows last shown
};

}  // namespace

std::string sweep_table_header(const std::vector<Placement>& placements) {
  std::string titles = fmt::format("#{:>{}}", "", kSizeWidth - 1);
  std::string names = fmt::format(kSizeColumns, "size", "count", "type", "redop", "root");
  std::string units = fmt::format(kSizeColumns, "(B)", "(elements)", "", "", "");
  for (const Placement placement : placements) {
    titles += fmt::format(" {:^{}}", placement_title(placement), kPlacementWidth - 1);
    names += fmt::format(kPlacementColumns, "time", "p99", "algbw", "busbw", "#wrong");
    units += fmt::format(kPlacementColumns, "(us)", "(us)", "(GB/s)", "(GB/s)", "");
  }
  // The time of one operation is the median of the timed samples (what algbw and busbw come
  // from); the p99 beside it shows a stalled sample.
  const auto trimmed = [](std::string line) {
    line.erase(line.find_last_not_of(' ') + 1);
    return line + "\n";
  };
  return trimmed(titles) + trimmed(names) + trimmed(units);
}

std::string sweep_table_row(const Collective& collective, const std::string& type_name,
                            const std::string& redop, const std::vector<Placement>& placements,
                            const std::vector<const SweepRow*>& by_placement) {
  const SweepRow* first = nullptr;
  for (const SweepRow* row : by_placement) {
    if (row && !first) first = row;
  }
  if (!first) return {};
  std::string text = fmt::format(" {:>12} {:>12} {:>7} {:>6} {:>5}", first->shape.size_bytes,
                                 first->shape.count, type_name, redop, collective.root);
  for (std::size_t i = 0; i < placements.size(); ++i) {
    const SweepRow* row = i < by_placement.size() ? by_placement[i] : nullptr;
    if (!row) {
      text += fmt::format(kPlacementColumns, "-", "-", "-", "-", "-");
      continue;
    }
    // A row read back without its samples' statistics has no p99 to show.
    const std::string p99 =
        row->time_us.count == 0 ? std::string("-") : fmt::format("{:.2f}", row->time_us.p99);
    text += fmt::format(" {:>9.2f} {:>9} {:>7.2f} {:>7.2f} {:>6}", row->time_us.median, p99,
                        row->algbw_gbps, row->busbw_gbps, row->wrong_total);
  }
  return text + "\n";
}

std::unique_ptr<LiveTable> make_sweep_live_table(const Collective& collective) {
  return std::make_unique<SweepLiveTable>(collective);
}

std::string sweep_console_table(const Collective& collective,
                                const std::vector<Measurement>& measurements) {
  auto table = make_sweep_live_table(collective);
  std::string text = table->rows(measurements);
  return text + table->closing(measurements);
}

}  // namespace fabcheck
