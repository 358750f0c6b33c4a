// The GPU stack in a CUDA build: device detection through the static cudart (which opens the
// driver's libcuda.so.1 itself), with the missing piece named when there is none; NCCL's and
// cuBLAS's load state through their on-demand loaders.
#include "bench/cuda/cuda_availability.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include "bench/cuda/cublas_library.hpp"
#include "bench/cuda/cuda_absence.hpp"
#include "bench/cuda/nccl_library.hpp"
#include "bench/sys/nvml_library.hpp"

namespace fabcheck {
namespace {

// Whether the driver's library can be opened here (cudart has it open when it could).
bool libcuda_present() {
  if (dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) != nullptr) return true;
  return dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) != nullptr;
}

// Why cudart found no device, naming what is missing where that can be told.
std::string no_device_reason(cudaError_t error) {
  CudaDriverFacts facts;
  facts.insufficient_driver = error == cudaErrorInsufficientDriver;
  facts.no_device = error == cudaErrorNoDevice;
  facts.error_text = cudaGetErrorString(error);
  facts.libcuda_present = libcuda_present();
  facts.runtime_cuda_version = CUDART_VERSION;
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess) facts.driver_cuda_version = driver;
  if (facts.libcuda_present) {
    const NvmlSession& nvml = process_nvml();
    facts.driver_version = nvml.driver_version;
    facts.nvml_reason = nvml.ok() ? std::string() : nvml.reason;
  }
  return no_cuda_device_reason(facts);
}

CudaAvailability query_availability() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    return {false, "no CUDA device (" + no_device_reason(error) + ")", 0};
  }
  if (count <= 0) return {false, "no CUDA device (none visible)", 0};
  return {true, "", count};
}

}  // namespace

CudaAvailability cuda_availability() {
  static const CudaAvailability availability = query_availability();
  return availability;
}

std::string nccl_missing() { return process_nccl().reason; }

std::string cublas_missing() { return process_cublas().reason; }

std::string nccl_library_version() {
  const NcclLibrary& nccl = process_nccl();
  if (!nccl.ok()) return "none (" + nccl.reason + ")";
  int code = 0;
  if (nccl.api->get_version(&code) != ncclSuccess) return "unknown";
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

std::string nccl_library_path() { return process_nccl().path; }

std::string cublas_library_path() { return process_cublas().path; }

}  // namespace fabcheck
