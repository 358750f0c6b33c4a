// Registry: the probes this binary knows, added by explicit register_*_probes() calls.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"
#include "results/metric_catalog.hpp"

namespace fabcheck {

class Registry {
 public:
  // Throws std::logic_error on a duplicate id.
  void add(std::unique_ptr<Probe> probe);
  Probe* find(const std::string& id) const;
  // In registration order.
  std::vector<Probe*> all() const;
  // Every probe's metrics, for checking profiles.
  MetricCatalog catalog() const;
  // Resolves "coll.all_reduce,coll.*" (a trailing ".*" takes a family) into probes, in the order
  // given, without repeats. Throws ConfigError naming an unknown id and listing the known ones;
  // with `skip_unknown` (for built-in plans) ids this build lacks are left out instead.
  std::vector<Probe*> select(const std::string& comma_separated_ids, bool skip_unknown = false) const;

 private:
  std::vector<std::unique_ptr<Probe>> probes_;
};

}  // namespace fabcheck
