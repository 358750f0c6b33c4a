// Host-callable launches of fabcheck's device code (kernels.cu); the only way host code reaches
// a kernel (the spin gate is bench/cuda/spin_gate.hpp's, shared with the NCCL backend). Built only
// with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "bench/sdc/hbm_pattern.hpp"
#include "bench/sdc/l2_pattern.hpp"
#include "bench/sdc/output_hash.hpp"
#include "bench/sdc/sdc_chain.hpp"

namespace fabcheck::kernels {

// Loads every kernel below on the current device (cudaFuncGetAttributes on each), so that none is
// loaded lazily (CUDA's default since 12.2) while a spin gate holds the device: a module load may
// wait for a context synchronisation, i.e. for the gate's own timeout (~10 s a device). nvbandwidth
// preloads its kernels for this reason. GatedTimer calls it for each device before it closes.
cudaError_t preload();

// An empty kernel, for launch latency.
cudaError_t launch_empty(cudaStream_t stream);

// data[i] = pattern_value(seed, i).
cudaError_t launch_fill_pattern(std::uint64_t* data, std::size_t count, std::uint64_t seed,
                                cudaStream_t stream);

// *wrong += number of i with data[i] != pattern_value(seed, i). *wrong is device-accessible.
cudaError_t launch_count_pattern_mismatches(const std::uint64_t* data, std::size_t count,
                                            std::uint64_t seed, unsigned long long* wrong,
                                            cudaStream_t stream);

// *wrong += number of i with a[i] != triad_value(seed_b, seed_c, scalar, i).
cudaError_t launch_count_triad_mismatches(const std::uint64_t* a, std::size_t count,
                                          std::uint64_t seed_b, std::uint64_t seed_c,
                                          std::uint64_t scalar, unsigned long long* wrong,
                                          cudaStream_t stream);

// dst[i] = src[i] with SM loads/stores (16 bytes a thread per step). `blocks` 0: enough to fill
// the current device. dst and src may be on different GPUs with peer access enabled.
cudaError_t launch_sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream,
                           int blocks = 0);

// a[i] = b[i] + scalar * c[i] (STREAM triad on 64-bit integers).
cudaError_t launch_triad(std::uint64_t* a, const std::uint64_t* b, const std::uint64_t* c,
                         std::uint64_t scalar, std::size_t count, cudaStream_t stream);

// GEMM inputs: data[i] = pattern_float(seed, i), as bf16 (`bf16` true, 2 bytes an element) or as
// float (4 bytes an element).
cudaError_t launch_fill_gemm_input(void* data, std::size_t count, std::uint64_t seed, bool bf16,
                                   cudaStream_t stream);

// FP8 GEMM inputs: data[i] = pattern_float(seed, i) as FP8 E4M3 (1 byte an element, rounded to
// the nearest, saturating to +-448).
cudaError_t launch_fill_fp8_input(void* data, std::size_t count, std::uint64_t seed,
                                  cudaStream_t stream);

// The L2 pattern's first half (bench/sdc/l2_pattern.hpp) in `blocks` blocks of `lanes` threads:
// thread t of block b writes the shape.l2_words words sdc::l2_written_word(block_seed(seed,
// first_block + t), b, i) into slice b of l2.buffer, and thread 0 writes the block's SM (%smid) to
// l2.writer_sm[b]. The launch's end is the grid-wide step before launch_sdc_chains reads them.
cudaError_t launch_sdc_l2_write(std::uint64_t seed, std::uint64_t first_block,
                                const sdc::ChainShape& shape, unsigned blocks, unsigned lanes,
                                const sdc::L2Traffic& l2, cudaStream_t stream);

// The SDC chains (bench/sdc/sdc_chain.hpp) in `blocks` blocks of `lanes` threads: thread t of
// every block computes block sdc::block_seed(seed, first_block + t), its crc_unit word through a
// CRC32C table in shared memory, into out[block * lanes + t], and thread 0 writes the SM the block
// ran on (%smid) to sm_of_block[block]. Every block computes the same lanes, so each SM's results
// are compared with one host reference. Before the chains each block reads the slice of
// sdc::l2_partner (a block of launch_sdc_l2_write's on another SM) into its l2_word, each lane's
// check into l2.reads[block * lanes + t] and the slice read into l2.partner_of_block[block].
cudaError_t launch_sdc_chains(std::uint64_t seed, std::uint64_t first_block,
                              const sdc::ChainShape& shape, unsigned blocks, unsigned lanes,
                              sdc::BlockDigest* out, unsigned* sm_of_block,
                              const sdc::L2Traffic& l2, cudaStream_t stream);

// data[i] = sdc::hbm_pattern_word(pattern, address of data, i, seed, inverted).
cudaError_t launch_fill_hbm_pattern(std::uint64_t* data, std::size_t count, int pattern,
                                    std::uint64_t seed, bool inverted, cudaStream_t stream);

// check->wrong += the words of data that differ from the pattern; check->first_index = the lowest
// index of one (atomicMin). `check` is device memory.
cudaError_t launch_check_hbm_pattern(const std::uint64_t* data, std::size_t count, int pattern,
                                     std::uint64_t seed, bool inverted, sdc::HbmCheck* check,
                                     cudaStream_t stream);

// *hash += sdc::output_hash_term(i, words[i]) for every i (wrapping; any order gives the same
// sum). `hash` is device memory.
cudaError_t launch_hash_words(const std::uint32_t* words, std::size_t count,
                              unsigned long long* hash, cudaStream_t stream);

}  // namespace fabcheck::kernels
