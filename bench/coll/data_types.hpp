// The element types and reduction operations a collective sweep runs (--dtype, --op, nccl-tests'
// -d and -o): their names, the options that choose them, and which (type, op) combinations a
// backend on a rank count runs, verified exactly, with why the others are left out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/coll/verification.hpp"
#include "bench/core/option_spec.hpp"

namespace fabcheck {

// nccl-tests' names: "int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float",
// "double", "bfloat16"; and "sum", "prod", "min", "max", "avg".
const char* data_type_name(verify::DataType type);
const char* reduce_op_name(verify::ReduceOp op);
std::optional<verify::DataType> data_type_named(const std::string& name);
std::optional<verify::ReduceOp> reduce_op_named(const std::string& name);

// "dtype" (--dtype; default float) and "op" (--op; default sum): a comma list or all.
const OptionSpec& dtype_option();
const OptionSpec& redop_option();

// A combination the options asked for that is not run: "half/avg" ("half" where nothing is
// reduced), and why ("the MPI backend has no half type (MPI has no standard 16-bit floating
// type)").
struct LeftOut {
  std::string what;
  std::string why;
  bool operator==(const LeftOut&) const = default;
};

// The combinations one collective runs, types outer and operations inner, and those the options
// asked for that it leaves out. A collective that reduces nothing runs each type once (its op is
// unused; the records say redop "none").
struct ElementPlan {
  std::vector<verify::Element> run;
  std::vector<LeftOut> left_out;
};

// The plan of `reduces` (Collective::expected.reduced) on `backend` ("mpi", "nccl") and `nranks`
// ranks. A value named explicitly (not through all) that cannot run is refused: ConfigError naming
// the option, the value and why (exit 2); one that `all` brought in is left out, with why. Also a
// ConfigError when nothing is left to run.
ElementPlan element_plan(const RunOptions& options, bool reduces, const std::string& backend,
                         int nranks);

// What was left out, one clause a reason in the order first met: "int8/avg, uint8/avg: the MPI
// backend has no avg operation (...); half/sum, half/prod: ..."; "" when nothing was.
std::string left_out_text(const ElementPlan& plan);

// The redop a measurement records: the op's name, or "none" for a collective that reduces nothing.
std::string redop_label(const verify::Element& element, bool reduces);

}  // namespace fabcheck
