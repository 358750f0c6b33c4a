// RunWriter: measurements.jsonl, findings.jsonl, summary.json and run.h5 in one run directory.
#include "results/run_writer.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "results/config_error.hpp"
#include "results/hdf5_writer.hpp"
#include "results/prometheus_writer.hpp"
#include "results/record_json.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

std::string dump_line(const nlohmann::json& json) {
  // Replace invalid UTF-8 (a log line, a device name) rather than lose the record.
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// Opens a file that must not exist yet ("x": O_EXCL), so nothing earlier is written over.
std::FILE* create_exclusively(const fs::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "wx");
  if (file == nullptr) {
    throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(errno));
  }
  return file;
}

void write_line(std::FILE* file, const std::string& line, const fs::path& path) {
  if (std::fwrite(line.data(), 1, line.size(), file) != line.size() || std::fflush(file) != 0) {
    throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  }
}

}  // namespace

RunWriter::RunWriter(fs::path dir) : dir_(std::move(dir)) {
  std::error_code error;
  if (fs::exists(dir_, error)) {
    if (!fs::is_directory(dir_, error)) {
      throw ConfigError(dir_.string(), 0, "run directory path exists and is not a directory");
    }
    if (!fs::is_empty(dir_, error)) {
      throw ConfigError(dir_.string(), 0,
                        "run directory exists and is not empty; an earlier run is never "
                        "written over (choose another output directory)");
    }
  }
  fs::create_directories(dir_, error);
  if (error) {
    throw ConfigError(dir_.string(), 0, "cannot create run directory: " + error.message());
  }
  measurements_file_ = create_exclusively(dir_ / "measurements.jsonl");
  try {
    findings_file_ = create_exclusively(dir_ / "findings.jsonl");
  } catch (...) {
    std::fclose(measurements_file_);
    throw;
  }
}

RunWriter::~RunWriter() {
  if (measurements_file_ != nullptr) std::fclose(measurements_file_);
  if (findings_file_ != nullptr) std::fclose(findings_file_);
}

void RunWriter::append(const Measurement& measurement) {
  write_line(measurements_file_, dump_line(to_json(measurement)), dir_ / "measurements.jsonl");
  measurements_.push_back(measurement);
}

void RunWriter::append(const Finding& finding) {
  write_line(findings_file_, dump_line(to_json(finding)), dir_ / "findings.jsonl");
  findings_.push_back(finding);
}

void RunWriter::write_summary(const nlohmann::json& summary) {
  const fs::path final_path = dir_ / "summary.json";
  const fs::path temporary = dir_ / "summary.json.tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + temporary.string());
  }
  std::error_code error;
  fs::rename(temporary, final_path, error);
  if (error) {
    throw std::runtime_error("cannot rename " + temporary.string() + " to " + final_path.string() +
                             ": " + error.message());
  }
}

bool RunWriter::write_hdf5() {
  return fabcheck::write_hdf5(dir_ / "run.h5", measurements_, findings_);
}

void RunWriter::write_prometheus(const nlohmann::json& summary, const fs::path& collector_dir) {
  fabcheck::write_prometheus(dir_ / "metrics.prom", measurements_, findings_, summary);
  if (!collector_dir.empty()) {
    fabcheck::write_prometheus(collector_dir / prometheus_file_name(summary), measurements_,
                               findings_, summary);
  }
}

std::vector<Measurement> read_measurements(const fs::path& run_dir) {
  const fs::path path = run_dir / "measurements.jsonl";
  std::ifstream in(path);
  if (!in) throw ConfigError(path.string(), 0, "cannot open measurements file");
  std::vector<Measurement> measurements;
  std::string line;
  long line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path.string() + ":" + std::to_string(line_number);
    nlohmann::json json;
    try {
      json = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& error) {
      throw ConfigError(path.string(), line_number, std::string("invalid JSON: ") + error.what());
    }
    measurements.push_back(measurement_from_json(json, where));
  }
  return measurements;
}

}  // namespace fabcheck
