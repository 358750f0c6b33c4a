// Slurm's host-list expressions ("tux[0-3,12],gpu07", "r[1-2]-n[01-04]") expanded to host names.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck {

// The names `expression` stands for, in its order: comma-separated items, each with any number of
// bracketed ranges ("[01-04,07]": zero padding kept as written; several brackets multiply). Throws
// std::invalid_argument naming the part that is wrong (an unclosed bracket, a range that runs
// backwards, an empty item) or when it stands for more than `max_names` names.
std::vector<std::string> expand_hostlist(std::string_view expression,
                                         std::size_t max_names = 1 << 20);

}  // namespace fabcheck
