// Element types and reduction operations of the collectives: names, options, and the plan of
// combinations each backend runs (see data_types.hpp).
#include "bench/coll/data_types.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "bench/core/probe.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

using verify::DataType;
using verify::ReduceOp;

constexpr std::array<std::pair<DataType, const char*>, 10> kTypes{{
    {DataType::int8, "int8"},
    {DataType::uint8, "uint8"},
    {DataType::int32, "int32"},
    {DataType::uint32, "uint32"},
    {DataType::int64, "int64"},
    {DataType::uint64, "uint64"},
    {DataType::float16, "half"},
    {DataType::float32, "float"},
    {DataType::float64, "double"},
    {DataType::bfloat16, "bfloat16"},
}};

constexpr std::array<std::pair<ReduceOp, const char*>, 5> kOps{{
    {ReduceOp::sum, "sum"},
    {ReduceOp::prod, "prod"},
    {ReduceOp::min, "min"},
    {ReduceOp::max, "max"},
    {ReduceOp::avg, "avg"},
}};

// The name of `value` in `table` ("?" for none), and the value of `name` (nullopt for none).
template <typename Table, typename Value>
const char* name_in(const Table& table, Value value) {
  for (const auto& [known, name] : table) {
    if (known == value) return name;
  }
  return "?";
}

template <typename Table>
auto value_named(const Table& table, const std::string& name)
    -> std::optional<typename Table::value_type::first_type> {
  for (const auto& [value, known] : table) {
    if (name == known) return value;
  }
  return std::nullopt;
}

template <typename Table>
std::vector<std::string> names_of(const Table& table) {
  std::vector<std::string> names;
  for (const auto& [value, name] : table) names.emplace_back(name);
  return names;
}

// Why `backend` cannot run `element` at all ("" when it can): MPI has no standard 16-bit floating
// type and no average operation.
std::string backend_lacks(const std::string& backend, verify::Element element, bool reduces) {
  if (backend != "mpi") return {};
  if (element.type == DataType::float16 || element.type == DataType::bfloat16) {
    return std::string("the MPI backend has no ") + data_type_name(element.type) +
           " type (MPI has no standard 16-bit floating type)";
  }
  if (reduces && element.op == ReduceOp::avg) {
    return "the MPI backend has no avg operation (MPI has no average reduction)";
  }
  return {};
}

// Why results of `element` on `nranks` ranks cannot be predicted exactly ("" when they can).
std::string inexact(verify::Element element, int nranks) {
  if (verify::exact_on(element, nranks)) return {};
  const std::string type = data_type_name(element.type);
  const std::string ranks = std::to_string(nranks) + " ranks";
  if (verify::sum_input_limit(element.type, nranks) == 0) {
    return "a " + type + " " + reduce_op_name(element.op) + " over " + ranks +
           " is not exact in every order (" + type + " holds every integer only up to 2^" +
           std::to_string(verify::significand_bits(element.type)) + ")";
  }
  return "a " + type + " avg over " + ranks +
         " is not exact (NCCL multiplies each input by 1/n rounded to " + type +
         "; exact only for a power-of-two rank count)";
}

}  // namespace

const char* data_type_name(DataType type) { return name_in(kTypes, type); }

const char* reduce_op_name(ReduceOp op) { return name_in(kOps, op); }

std::optional<DataType> data_type_named(const std::string& name) {
  return value_named(kTypes, name);
}

std::optional<ReduceOp> reduce_op_named(const std::string& name) { return value_named(kOps, name); }

const OptionSpec& dtype_option() {
  static const OptionSpec spec{.key = "dtype",
                               .type = OptionType::choice_list,
                               .default_value = "float",
                               .meaning =
                                   "collective element types, each its own sweep (--dtype; "
                                   "nccl-tests' -d)",
                               .choices = names_of(kTypes)};
  return spec;
}

const OptionSpec& redop_option() {
  static const OptionSpec spec{.key = "op",
                               .type = OptionType::choice_list,
                               .default_value = "sum",
                               .meaning =
                                   "reduction operations of all_reduce and reduce_scatter, each "
                                   "its own sweep (--op; nccl-tests' -o)",
                               .choices = names_of(kOps)};
  return spec;
}

ElementPlan element_plan(const RunOptions& options, bool reduces, const std::string& backend,
                         int nranks) {
  const auto given = [&](const OptionSpec& spec) {
    const auto found = options.extra.find(spec.key);
    return found == options.extra.end() || found->second != "all";
  };
  const bool types_named = given(dtype_option());
  const bool ops_named = given(redop_option());
  std::vector<ReduceOp> ops;
  if (reduces) {
    for (const std::string& name : option_choices(options, redop_option()))
      ops.push_back(*reduce_op_named(name));
  } else {
    ops.push_back(ReduceOp::sum);  // unused: nothing is reduced
  }
  ElementPlan plan;
  for (const std::string& type_name : option_choices(options, dtype_option())) {
    const DataType type = *data_type_named(type_name);
    for (const ReduceOp op : ops) {
      const verify::Element element{type, op};
      const std::string what =
          reduces ? type_name + "/" + reduce_op_name(op) : type_name;  // "half/avg", "half"
      std::string why = backend_lacks(backend, element, reduces);
      // A value asked for by name, not through all, that the backend lacks: refused.
      if (!why.empty()) {
        const bool type_lacking = backend_lacks(backend, {type, ReduceOp::sum}, reduces) != "";
        if (type_lacking && types_named) throw ConfigError("--dtype " + type_name + ": " + why);
        if (!type_lacking && ops_named)
          throw ConfigError(std::string("--op ") + reduce_op_name(op) + ": " + why);
      }
      if (why.empty()) why = reduces ? inexact(element, nranks) : std::string();
      if (why.empty()) {
        plan.run.push_back(element);
        continue;
      }
      // Not exactly verifiable on this rank count: refused when both were named, never run
      // unverified.
      if (types_named && ops_named) {
        throw ConfigError("--dtype " + type_name + " --op " + reduce_op_name(op) + ": " + why +
                          "; refused rather than run unverified");
      }
      plan.left_out.push_back({what, why});
    }
  }
  if (plan.run.empty()) {
    throw ConfigError("--dtype/--op: nothing left to run on the " + backend + " backend with " +
                      std::to_string(nranks) + " ranks");
  }
  return plan;
}

std::string left_out_text(const ElementPlan& plan) {
  std::vector<std::pair<std::string, std::string>> by_reason;  // why, what (in the order met)
  for (const LeftOut& left : plan.left_out) {
    const auto same = std::find_if(by_reason.begin(), by_reason.end(),
                                   [&](const auto& reason) { return reason.first == left.why; });
    if (same == by_reason.end()) {
      by_reason.emplace_back(left.why, left.what);
    } else {
      same->second += ", " + left.what;
    }
  }
  std::string text;
  for (const auto& [why, what] : by_reason) text += (text.empty() ? "" : "; ") + what + ": " + why;
  return text;
}

std::string redop_label(const verify::Element& element, bool reduces) {
  return reduces ? reduce_op_name(element.op) : "none";
}

}  // namespace fabcheck
