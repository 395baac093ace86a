/* The one-rank MPI of mpi.h (see there): rank 0 of 1, collectives copy send to receive. */
#include "mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int initialized, finalized;

static size_t bytes_of(int count, MPI_Datatype t) { return (size_t)(count < 0 ? 0 : count) * (size_t)(t / 16); }

static int copy(const void* send, void* recv, int count, MPI_Datatype t) {
  if (send != recv && count > 0) memmove(recv, send, bytes_of(count, t));
  return MPI_SUCCESS;
}

int MPI_Init(int* argc, char*** argv) {
  (void)argc, (void)argv;
  initialized = 1;
  return MPI_SUCCESS;
}
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  *provided = required;
  return MPI_Init(argc, argv);
}
int MPI_Initialized(int* flag) { *flag = initialized; return MPI_SUCCESS; }
int MPI_Finalized(int* flag) { *flag = finalized; return MPI_SUCCESS; }
int MPI_Finalize(void) { finalized = 1; return MPI_SUCCESS; }
int MPI_Abort(MPI_Comm comm, int code) { (void)comm; exit(code); }
int MPI_Comm_rank(MPI_Comm comm, int* rank) { (void)comm; *rank = 0; return MPI_SUCCESS; }
int MPI_Comm_size(MPI_Comm comm, int* size) { (void)comm; *size = 1; return MPI_SUCCESS; }
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler h) { (void)comm, (void)h; return MPI_SUCCESS; }
int MPI_Error_string(int code, char* text, int* len) {
  *len = snprintf(text, MPI_MAX_ERROR_STRING, "MPI singleton stub error %d (a peer other than rank 0?)", code);
  return MPI_SUCCESS;
}
int MPI_Get_library_version(char* text, int* len) {
  *len = snprintf(text, MPI_MAX_LIBRARY_VERSION_STRING, "fabdiag MPI singleton stub (one rank, no mpirun)");
  return MPI_SUCCESS;
}
int MPI_Get_version(int* major, int* minor) { *major = MPI_VERSION; *minor = MPI_SUBVERSION; return MPI_SUCCESS; }
double MPI_Wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
int MPI_Barrier(MPI_Comm comm) { (void)comm; return MPI_SUCCESS; }
int MPI_Bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
  (void)buf, (void)count, (void)t, (void)comm;
  return root == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}
int MPI_Allreduce(const void* send, void* recv, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  (void)op, (void)comm;
  return copy(send, recv, count, t);
}
int MPI_Reduce(const void* send, void* recv, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm) {
  (void)op, (void)comm;
  return root == 0 ? copy(send, recv, count, t) : MPI_ERR_OTHER;
}
int MPI_Reduce_scatter_block(const void* send, void* recv, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  (void)op, (void)comm;
  return copy(send, recv, count, t);
}
int MPI_Allgather(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt,
                  MPI_Comm comm) {
  (void)rcount, (void)rt, (void)comm;
  return copy(send, recv, scount, st);
}
int MPI_Alltoall(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt,
                 MPI_Comm comm) {
  return MPI_Allgather(send, scount, st, recv, rcount, rt, comm);
}
int MPI_Gather(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt, int root,
               MPI_Comm comm) {
  return root == 0 ? MPI_Allgather(send, scount, st, recv, rcount, rt, comm) : MPI_ERR_OTHER;
}
int MPI_Scatter(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt, int root,
                MPI_Comm comm) {
  (void)scount, (void)st, (void)comm;
  return root == 0 ? copy(send, recv, rcount, rt) : MPI_ERR_OTHER;
}
int MPI_Allgatherv(const void* send, int scount, MPI_Datatype st, void* recv, const int* rcounts, const int* displs,
                   MPI_Datatype rt, MPI_Comm comm) {
  (void)rcounts, (void)comm;
  return copy(send, (char*)recv + bytes_of(displs[0], rt), scount, st);
}
int MPI_Gatherv(const void* send, int scount, MPI_Datatype st, void* recv, const int* rcounts, const int* displs,
                MPI_Datatype rt, int root, MPI_Comm comm) {
  return root == 0 ? MPI_Allgatherv(send, scount, st, recv, rcounts, displs, rt, comm) : MPI_ERR_OTHER;
}
int MPI_Sendrecv(const void* send, int scount, MPI_Datatype st, int dest, int stag, void* recv, int rcount,
                 MPI_Datatype rt, int source, int rtag, MPI_Comm comm, MPI_Status* status) {
  (void)stag, (void)rtag, (void)comm, (void)status, (void)rcount, (void)rt;
  if (dest != 0 || source != 0) return MPI_ERR_OTHER;
  return copy(send, recv, scount, st);
}
