/* mpi_hello.c: a tiny MPI check for the emulated cluster (scripts/emucluster.sh).
 *
 * Every rank prints where it runs; then every pair of ranks, one pair at a time, exchanges a buffer
 * with MPI_Sendrecv (both directions at once) and rank 0 prints the rate per direction for each pair
 * and the median of each node's pairs. A node throttled with --slow-node shows up as a slow row.
 *
 * Build and run (not part of the CMake build; needs only mpicc):
 *   mpicc -O2 -o /tmp/mpi_hello tests/integration/mpi_hello.c
 *   mpirun $(cat /tmp/fabdiag-emucluster/mpirun-args) -np 8 /tmp/mpi_hello [BYTES] [ITERS]
 * BYTES defaults to 4 MiB, ITERS (timed exchanges per pair, best one kept) to 3.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a;
  const double y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  const long bytes = argc > 1 ? atol(argv[1]) : 4L * 1024 * 1024;
  const int iters = argc > 2 ? atoi(argv[2]) : 3;
  if (bytes <= 0 || bytes > (1L << 30) || iters <= 0) {
    if (rank == 0) fprintf(stderr, "usage: mpi_hello [BYTES (1..1 GiB)] [ITERS (>0)]\n");
    MPI_Finalize();
    return 2;
  }

  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  int host_len = 0;
  MPI_Get_processor_name(host, &host_len);
  const char* tmpdir = getenv("TMPDIR");
  printf("hello rank %d of %d on %s (TMPDIR=%s)\n", rank, size, host, tmpdir ? tmpdir : "unset");
  fflush(stdout);

  /* Host names by rank, for the report. */
  char* names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
             MPI_COMM_WORLD);

  char* sendbuf = malloc((size_t)bytes);
  char* recvbuf = malloc((size_t)bytes);
  double* rate = calloc((size_t)size * (size_t)size, sizeof(double)); /* MB/s per direction */
  double* all = calloc((size_t)size * (size_t)size, sizeof(double));
  if (!names || !sendbuf || !recvbuf || !rate || !all) {
    fprintf(stderr, "rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(sendbuf, rank & 0xff, (size_t)bytes);

  for (int a = 0; a < size; ++a) {
    for (int b = a + 1; b < size; ++b) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank != a && rank != b) continue;
      const int peer = rank == a ? b : a;
      double best = 0.0;
      for (int it = 0; it <= iters; ++it) { /* iteration 0 is a warm-up (connection setup) */
        const double t0 = MPI_Wtime();
        MPI_Sendrecv(sendbuf, (int)bytes, MPI_CHAR, peer, 0, recvbuf, (int)bytes, MPI_CHAR, peer, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const double dt = MPI_Wtime() - t0;
        if (it > 0 && (best == 0.0 || dt < best)) best = dt;
      }
      if (rank == a) rate[a * size + b] = rate[b * size + a] = (double)bytes / best / 1e6;
    }
  }
  MPI_Reduce(rate, all, size * size, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

  if (rank == 0) {
    printf("pairwise MPI_Sendrecv of %ld bytes, best of %d, MB/s per direction (1 MB = 1e6 bytes)\n",
           bytes, iters);
    for (int a = 0; a < size; ++a)
      for (int b = a + 1; b < size; ++b)
        printf("pair %s %s %.1f\n", &names[a * MPI_MAX_PROCESSOR_NAME],
               &names[b * MPI_MAX_PROCESSOR_NAME], all[a * size + b]);
    double* row = calloc((size_t)size, sizeof(double));
    for (int a = 0; a < size && row; ++a) {
      int n = 0;
      for (int b = 0; b < size; ++b)
        if (b != a) row[n++] = all[a * size + b];
      qsort(row, (size_t)n, sizeof(double), compare_doubles);
      const double median = n == 0 ? 0.0 : (n % 2 ? row[n / 2] : (row[n / 2 - 1] + row[n / 2]) / 2);
      printf("node %s median %.1f min %.1f max %.1f\n", &names[a * MPI_MAX_PROCESSOR_NAME], median,
             n ? row[0] : 0.0, n ? row[n - 1] : 0.0);
    }
    free(row);
  }

  free(all);
  free(rate);
  free(recvbuf);
  free(sendbuf);
  free(names);
  MPI_Finalize();
  return 0;
}
