// The storage probes, one factory each (registered by register_storage_probes).
#pragma once

#include <memory>

#include "bench/core/probe.hpp"

namespace fabcheck {

std::unique_ptr<Probe> make_seq_write_probe();   // storage.seq_write
std::unique_ptr<Probe> make_seq_read_probe();    // storage.seq_read
std::unique_ptr<Probe> make_rand_read_probe();   // storage.rand_read
std::unique_ptr<Probe> make_fsync_lat_probe();   // storage.fsync_lat
std::unique_ptr<Probe> make_ckpt_write_probe();  // storage.ckpt_write
std::unique_ptr<Probe> make_ckpt_read_probe();   // storage.ckpt_read
std::unique_ptr<Probe> make_metadata_probe();    // storage.metadata
std::unique_ptr<Probe> make_contention_probe();  // storage.contention
std::unique_ptr<Probe> make_loader_probe();      // storage.loader

}  // namespace fabcheck
