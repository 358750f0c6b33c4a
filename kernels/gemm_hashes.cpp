// Judging the GEMM output hashes: each GPU against itself, then each group of like GPUs by
// majority.
#include "kernels/gemm_hashes.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <tuple>

namespace fabcheck {
namespace {

std::string where(const Measurement& m) {
  return m.subject + " (" + param_of(m, "bus_id") + ") of " + m.host;
}

// The cuBLAS file that computed it ("libcublas.so.13.1.0.3"), not the folder it was found in.
std::string cublas_file(const Measurement& m) {
  return std::filesystem::path(param_of(m, "cublas_library")).filename().string();
}

// "cuBLAS libcublas.so.13.1.0.3, driver 580.65.06" (", algorithm id 66 tile 20 ..." for fp8).
std::string versions(const Measurement& m) {
  const std::string algo = param_of(m, "algo");
  return "cuBLAS " + cublas_file(m) + ", driver " + param_of(m, "driver") +
         (algo.empty() ? "" : ", algorithm " + algo);
}

}  // namespace

std::vector<Finding> judge_gemm_hashes(const std::vector<Measurement>& measurements) {
  std::vector<Finding> out;
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string,
                         std::string, std::string>;
  std::map<Key, std::vector<const Measurement*>> groups;
  for (const Measurement& m : measurements) {
    if (m.probe != "gpu.gemm" || m.metric != kGemmHashChangesMetric ||
        m.status != MeasurementStatus::ok)
      continue;
    if (m.value > 0) {
      Finding f = finding_about(m, Severity::fail);
      f.expected = 0;
      f.message = where(m) + ": the same " + param_of(m, "dtype") +
                  " GEMM gave other bits at the end of its run (output hash " +
                  param_of(m, "output_hash_first") + " after the first, " +
                  param_of(m, "output_hash") + " after the last)";
      f.remedy =
          "drain the node: a GPU whose tensor cores give different bits for the same "
          "inputs corrupts training silently; confirm with dcgmi diag -r 4, then RMA";
      f.source = "exact: C = A x B with beta 0 leaves the same bits after every GEMM";
      out.push_back(std::move(f));
      continue;
    }
    // Never compared across versions: a record that does not say which made it stays alone.
    if (param_of(m, "driver").empty() || param_of(m, "cublas_library").empty()) continue;
    groups[{param_of(m, "model"), param_of(m, "sms"), param_of(m, "driver"), cublas_file(m),
            param_of(m, "dtype"), param_of(m, "m_n_k"), param_of(m, "algo")}]
        .push_back(&m);
  }
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    std::map<std::string, std::size_t> count;
    for (const Measurement* m : members) ++count[param_of(*m, "output_hash")];
    std::string majority;
    for (const auto& [hash, n] : count) {
      if (2 * n > members.size()) majority = hash;
    }
    const Measurement& first = *members.front();
    const std::string kind = param_of(first, "dtype") + " GEMM " + param_of(first, "m_n_k") +
                             "^3 on " + std::to_string(members.size()) + " " +
                             param_of(first, "model") + " GPUs (" + versions(first) + ")";
    if (count.size() == 1) {
      Finding f = finding_about(first, Severity::pass);
      f.subject = "gemm_hash";
      f.host.clear();
      f.message = "the " + kind + " gave the same output bits (hash " + majority + ")";
      f.source = "exact: one GEMM, one model, one cuBLAS";
      out.push_back(std::move(f));
      continue;
    }
    for (const Measurement* m : members) {
      const std::string hash = param_of(*m, "output_hash");
      if (!majority.empty() && hash == majority) continue;
      Finding f = finding_about(*m, majority.empty() ? Severity::warn : Severity::fail);
      f.expected = 0;
      if (majority.empty()) {
        f.message = where(*m) + ": the " + kind +
                    " do not agree and no output hash has a "
                    "majority (this one " +
                    hash + ", " + std::to_string(count.size()) +
                    " different hashes): a GPU of another kind of fault, or too few GPUs to "
                    "tell which is wrong";
        f.remedy = "run gpu.gemm on more GPUs of this model and versions, then compare again";
      } else {
        f.message = where(*m) + ": output hash " + hash + " where " +
                    std::to_string(count.at(majority)) + " of the " + kind + " gave " + majority;
        f.remedy =
            "drain the node: this GPU's tensor cores compute other bits than its peers' "
            "for the same inputs; confirm with dcgmi diag -r 4, then RMA";
      }
      f.source =
          "exact: one GEMM on GPUs of one model, SM count, driver and cuBLAS is bit-wise "
          "reproducible";
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace fabcheck
