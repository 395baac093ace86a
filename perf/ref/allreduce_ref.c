/* allreduce_ref: the minimal MPI loops that scripts/bench-vs-reference.sh compares fabdiag with
 * (docs/ARCHITECTURE.md#performance-targets: harness overhead of `fabdiag bench --backend mpi`
 * within 3% of a minimal loop at >= 1 MiB; pairwise within 5% of raw MPI_Sendrecv).
 * Not part of the fabdiag build: compile with `mpicc -O2 allreduce_ref.c -o allreduce_ref`.
 *
 *   allreduce_ref allreduce SIZE_BYTES ITERS WARMUP
 *       MPI_Allreduce(MPI_SUM) of SIZE_BYTES/4 floats; timed like fabdiag: warm-up, barrier,
 *       timed loop; avg time per iteration, max over ranks; busbw = size/time * 2(n-1)/n.
 *   allreduce_ref sendrecv SIZE_BYTES ITERS WARMUP
 *       ranks 0 and 1 exchange SIZE_BYTES each way with MPI_Sendrecv (other ranks idle);
 *       bytes/s per direction = SIZE_BYTES * ITERS / loop time, mean of the two ranks.
 * Rank 0 prints one line: "<mode> size_bytes=S ranks=N time_s=T busbw_bytes_per_s=B" (allreduce)
 * or "sendrecv size_bytes=S time_s=T bytes_per_s=B".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc != 5) {
    if (rank == 0) fprintf(stderr, "usage: %s allreduce|sendrecv SIZE_BYTES ITERS WARMUP\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const char* mode = argv[1];
  const long long size = atoll(argv[2]);
  const int iters = atoi(argv[3]), warmup = atoi(argv[4]);
  if (size <= 0 || iters <= 0 || warmup < 0) {
    if (rank == 0) fprintf(stderr, "SIZE_BYTES and ITERS must be > 0, WARMUP >= 0\n");
    MPI_Finalize();
    return 2;
  }
  char* send = malloc((size_t)size);
  char* recv = malloc((size_t)size);
  if (!send || !recv) MPI_Abort(MPI_COMM_WORLD, 1);
  memset(send, 1, (size_t)size);
  memset(recv, 0, (size_t)size);

  if (strcmp(mode, "allreduce") == 0) {
    const int count = (int)(size / 4);
    for (int i = 0; i < warmup; ++i)
      MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i)
      MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double mine = (MPI_Wtime() - t0) / iters, slowest = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double bytes = (double)count * 4;
    if (rank == 0)
      printf("allreduce size_bytes=%.0f ranks=%d time_s=%.9g busbw_bytes_per_s=%.6g\n", bytes, n,
             slowest, bytes / slowest * 2.0 * (n - 1) / n);
  } else if (strcmp(mode, "sendrecv") == 0 && n >= 2) {
    double mine = 0;
    if (rank < 2) {
      int peer = 1 - rank;
      for (int i = 0; i < warmup; ++i)
        MPI_Sendrecv(send, (int)size, MPI_BYTE, peer, 0, recv, (int)size, MPI_BYTE, peer, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank < 2) {
      int peer = 1 - rank;
      double t0 = MPI_Wtime();
      for (int i = 0; i < iters; ++i)
        MPI_Sendrecv(send, (int)size, MPI_BYTE, peer, 0, recv, (int)size, MPI_BYTE, peer, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      mine = MPI_Wtime() - t0;
    }
    double sum = 0;
    double rate = rank < 2 ? (double)size * iters / mine : 0;
    MPI_Reduce(&rate, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("sendrecv size_bytes=%lld time_s=%.9g bytes_per_s=%.6g\n", size, mine / iters, sum / 2);
  } else {
    if (rank == 0) fprintf(stderr, "unknown mode '%s' (or sendrecv with fewer than 2 ranks)\n", mode);
    MPI_Finalize();
    return 2;
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
