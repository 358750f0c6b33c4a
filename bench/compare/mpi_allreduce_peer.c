/* The peer for bench/compare_mpi.sh: a plain MPI_Allreduce timing loop with nothing of fabcheck in
 * it, timed the same way (per-iteration host time, slowest rank per iteration, median), so the
 * ratio of the two shows only what fabcheck's harness costs. Usage: mpi_allreduce_peer
 * SIZE_BYTES... (env PEER_ITERS, PEER_WARMUP). Prints "size busbw_GBps". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  int provided = 0, rank = 0, nranks = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const int iters = getenv("PEER_ITERS") ? atoi(getenv("PEER_ITERS")) : 20;
  const int warmup = getenv("PEER_WARMUP") ? atoi(getenv("PEER_WARMUP")) : 5;
  double* samples = malloc(sizeof(double) * (size_t)iters);
  for (int a = 1; a < argc; ++a) {
    const size_t count = strtoull(argv[a], NULL, 10) / sizeof(float);
    float* send = malloc(count * sizeof(float));
    float* recv = malloc(count * sizeof(float));
    for (size_t i = 0; i < count; ++i) send[i] = (float)(i % 16 + 1);
    memset(recv, 0, count * sizeof(float));
    for (int i = 0; i < warmup; ++i)
      MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters; ++i) {
      const double start = MPI_Wtime();
      MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      samples[i] = MPI_Wtime() - start;
    }
    MPI_Allreduce(MPI_IN_PLACE, samples, iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    qsort(samples, (size_t)iters, sizeof(double), compare_doubles);
    const double median =
        iters % 2 ? samples[iters / 2] : (samples[iters / 2 - 1] + samples[iters / 2]) / 2;
    const double busbw =
        (double)(count * sizeof(float)) / median / 1e9 * 2.0 * (nranks - 1) / nranks;
    if (rank == 0) printf("%zu %.6f\n", count * sizeof(float), busbw);
    free(send);
    free(recv);
  }
  free(samples);
  MPI_Finalize();
  return 0;
}
