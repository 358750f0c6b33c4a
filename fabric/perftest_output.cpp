// perftest (ib_write_bw, ib_write_lat) results from its JSON report or its text table.
#include "fabric/perftest_output.hpp"

#include <map>
#include <optional>

#include "bench/sys/text_scan.hpp"

namespace fabcheck {

namespace {

// "key": value or key: value pairs anywhere in the text (perftest's report is flat enough for
// this, and it also reads the unquoted form). Values are the number text after the colon.
std::map<std::string, std::string> key_values(std::string_view text) {
  std::map<std::string, std::string> values;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t colon = text.find(':', i);
    if (colon == std::string_view::npos) break;
    std::size_t key_end = colon;
    while (key_end > i && (text[key_end - 1] == ' ' || text[key_end - 1] == '"')) --key_end;
    std::size_t key_start = key_end;
    while (key_start > i) {
      char c = text[key_start - 1];
      bool key_char = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '.';
      if (!key_char) break;
      --key_start;
    }
    std::size_t value_start = colon + 1;
    while (value_start < text.size() && (text[value_start] == ' ' || text[value_start] == '\t')) {
      ++value_start;
    }
    std::size_t value_end = value_start;
    while (value_end < text.size() && text[value_end] != ',' && text[value_end] != '}' &&
           text[value_end] != '\n' && text[value_end] != '{') {
      ++value_end;
    }
    if (key_end > key_start) {
      values[std::string(text.substr(key_start, key_end - key_start))] =
          std::string(text::trim(text.substr(value_start, value_end - value_start)));
    }
    i = colon + 1;
  }
  return values;
}

std::optional<double> number(const std::map<std::string, std::string>& values,
                             const std::string& key) {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  return text::parse_number(it->second);
}

std::optional<std::uint64_t> whole(const std::map<std::string, std::string>& values,
                                   const std::string& key) {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  return text::parse_unsigned(it->second);
}

// Rows of numbers after the header line that contains `header_mark`.
struct Table {
  std::string header;
  std::vector<std::vector<std::string_view>> rows;
  bool found = false;
};

Table read_table(std::string_view text, std::string_view header_mark) {
  Table table;
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (!table.found) {
      if (line.find(header_mark) != std::string_view::npos) {
        table.found = true;
        table.header = std::string(text::trim(line));
      }
      continue;
    }
    auto tokens = text::split_whitespace(line);
    if (tokens.empty() || tokens[0].front() == '-') continue;  // rules between sections
    if (!text::parse_unsigned(tokens[0])) break;               // end of the table
    table.rows.push_back(tokens);
  }
  return table;
}

}  // namespace

double mib_per_s_to_gbps(double mib_per_s) { return mib_per_s * 1048576.0 * 8.0 / 1e9; }

PerftestBw parse_perftest_bw_json(std::string_view text) {
  PerftestBw result;
  auto values = key_values(text);
  auto size = whole(values, "MsgSize");
  auto iterations = whole(values, "n_iterations");
  auto peak = number(values, "BW_peak");
  auto average = number(values, "BW_average");
  auto rate = number(values, "MsgRate");
  if (!size || !average) {
    result.error = "perftest JSON report without a numeric MsgSize and BW_average";
    return result;
  }
  result.rows.push_back(
      {*size, iterations.value_or(0), peak.value_or(0), *average, rate.value_or(0)});
  return result;
}

PerftestLat parse_perftest_lat_json(std::string_view text) {
  PerftestLat result;
  auto values = key_values(text);
  auto size = whole(values, "MsgSize");
  auto avg = number(values, "t_avg");
  if (!size || !avg) {
    result.error = "perftest JSON report without a numeric MsgSize and t_avg";
    return result;
  }
  PerftestLatRow row;
  row.size_bytes = *size;
  row.iterations = whole(values, "n_iterations").value_or(0);
  row.t_avg = *avg;
  row.t_min = number(values, "t_min").value_or(*avg);
  row.t_max = number(values, "t_max").value_or(*avg);
  row.t_typical = number(values, "t_typical").value_or(*avg);
  row.t_stdev = number(values, "t_stdev").value_or(0);
  row.p99 = number(values, "percentile_99").value_or(row.t_max);
  row.p999 = number(values, "percentile_99.9").value_or(row.t_max);
  result.rows.push_back(row);
  return result;
}

PerftestBw parse_perftest_bw_text(std::string_view text) {
  PerftestBw result;
  Table table = read_table(text, "#bytes");
  if (!table.found) {
    result.error = "no \"#bytes\" result header in the ib_write_bw output";
    return result;
  }
  result.unit = table.header.find("Gb/sec") != std::string::npos ? "Gb/s" : "MiB/s";
  for (const auto& row : table.rows) {
    if (row.size() < 5) {
      result.error =
          "ib_write_bw result row with " + std::to_string(row.size()) + " columns, expected 5";
      result.rows.clear();
      return result;
    }
    auto size = text::parse_unsigned(row[0]);
    auto iterations = text::parse_unsigned(row[1]);
    auto peak = text::parse_number(row[2]);
    auto average = text::parse_number(row[3]);
    auto rate = text::parse_number(row[4]);
    if (!size || !iterations || !peak || !average || !rate) {
      result.error = "ib_write_bw result row with a field that is not a number";
      result.rows.clear();
      return result;
    }
    result.rows.push_back({*size, *iterations, *peak, *average, *rate});
  }
  if (result.rows.empty()) result.error = "ib_write_bw printed its header but no result row";
  return result;
}

PerftestLat parse_perftest_lat_text(std::string_view text) {
  PerftestLat result;
  Table table = read_table(text, "#bytes");
  if (!table.found) {
    result.error = "no \"#bytes\" result header in the ib_write_lat output";
    return result;
  }
  for (const auto& row : table.rows) {
    if (row.size() < 9) {
      result.error =
          "ib_write_lat result row with " + std::to_string(row.size()) + " columns, expected 9";
      result.rows.clear();
      return result;
    }
    PerftestLatRow parsed;
    auto size = text::parse_unsigned(row[0]);
    auto iterations = text::parse_unsigned(row[1]);
    std::optional<double> fields[7];
    for (int i = 0; i < 7; ++i)
      fields[i] = text::parse_number(row[static_cast<std::size_t>(i + 2)]);
    bool ok = size && iterations;
    for (const auto& field : fields) ok = ok && field.has_value();
    if (!ok) {
      result.error = "ib_write_lat result row with a field that is not a number";
      result.rows.clear();
      return result;
    }
    parsed.size_bytes = *size;
    parsed.iterations = *iterations;
    parsed.t_min = *fields[0];
    parsed.t_max = *fields[1];
    parsed.t_typical = *fields[2];
    parsed.t_avg = *fields[3];
    parsed.t_stdev = *fields[4];
    parsed.p99 = *fields[5];
    parsed.p999 = *fields[6];
    result.rows.push_back(parsed);
  }
  if (result.rows.empty()) result.error = "ib_write_lat printed its header but no result row";
  return result;
}

PerftestValidation parse_perftest_validation(std::string_view output) {
  PerftestValidation found;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    std::string_view line = text::trim(output.substr(start, end - start));
    start = end + 1;
    std::string_view rest = line;
    if (!text::consume(rest, "VALIDATION: ")) continue;
    // The first number after " - ": errors (FAILED) or chunks (PASSED).
    auto number_after = [](std::string_view text, std::string_view marker) -> std::uint64_t {
      const std::size_t at = text.find(marker);
      if (at == std::string_view::npos) return 0;
      text.remove_prefix(at + marker.size());
      std::size_t digits = 0;
      while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
      return text::parse_unsigned(text.substr(0, digits)).value_or(0);
    };
    PerftestValidation next;
    next.line = std::string(line);
    if (text::consume(rest, "FAILED")) {
      next.result = PerftestValidation::Result::failed;
      next.errors = number_after(rest, " - ");
      if (next.errors == 0) next.errors = 1;  // it failed: at least one, whatever it printed
    } else if (text::consume(rest, "PASSED")) {
      next.result = PerftestValidation::Result::passed;
      next.bytes_validated = number_after(rest, " chunks, ");
    } else if (text::consume(rest, "WARNING")) {
      next.result = PerftestValidation::Result::no_data;
    } else {
      next.result = PerftestValidation::Result::error;
    }
    // The worst line wins: a FAILED is never hidden by a later PASSED (a duplex run prints two).
    if (found.result == PerftestValidation::Result::absent ||
        static_cast<int>(next.result) > static_cast<int>(found.result)) {
      found = next;
    }
  }
  return found;
}

}  // namespace fabcheck
