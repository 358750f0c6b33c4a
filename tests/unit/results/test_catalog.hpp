// The metric catalog the results tests parse profiles against (what the registry would build).
#pragma once

#include "results/metric_catalog.hpp"

namespace fabcheck::testing {

inline MetricCatalog test_catalog() {
  return {{"coll.all_reduce",
           {{"algbw", {"GB/s", Better::higher}},
            {"busbw", {"GB/s", Better::higher}},
            {"time_us", {"us", Better::lower}},
            {"wrong_elements", {"count", Better::lower}}}},
          {"gpu.launch", {{"latency", {"us", Better::lower}}}}};
}

}  // namespace fabcheck::testing
