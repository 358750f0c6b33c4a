// The collectives' console table in nccl-tests' layout: a row per size with each placement's time
// (median and p99 of the timed samples), algbw, busbw and #wrong side by side (out-of-place, then
// in-place), printed row by row while the sweep runs (a LiveTable) and closed with the wrong
// elements of all sizes and the average bus bandwidth. Each (type, redop) a run sweeps
// (--dtype, --op) is a table of its own, under its own header.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bench/coll/collective.hpp"
#include "bench/coll/engine.hpp"
#include "bench/core/live_table.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// The header for the placements shown (in that order): a line naming each placement's columns,
// the column names, their units.
std::string sweep_table_header(const std::vector<Placement>& placements);

// A size's row: its rows of each placement shown (null: that placement has no figures at this
// size, printed as "-"); size and count from the first that is there. root from the entry; type
// and redop as the records name them ("float", "sum"; "none" for a collective that reduces
// nothing).
std::string sweep_table_row(const Collective& collective, const std::string& type_name,
                            const std::string& redop, const std::vector<Placement>& placements,
                            const std::vector<const SweepRow*>& by_placement);

// The live table of a sweep: rows() reads the root's world figures (rank -1, with count and
// placement), one row per size as its figures come, a header again where the type or redop
// changes; the placements shown are those of the first size that has any. closing() shows every
// other measurement (another rank's, an error) in the generic table, then "# #wrong ..." and "# Avg
// bus bandwidth ..." over the rows shown.
std::unique_ptr<LiveTable> make_sweep_live_table(const Collective& collective);

// The whole table of a sweep's gathered measurements at once (ProbeInfo::console_table): the live
// table's rows of all of them, then its closing.
std::string sweep_console_table(const Collective& collective,
                                const std::vector<Measurement>& measurements);

}  // namespace fabcheck
