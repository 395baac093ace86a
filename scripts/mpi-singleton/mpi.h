/* A one-rank MPI for building fabdiag where no MPI is installed (scripts/device-check.sh on a GPU
 * machine that has no MPI development files): the subset of the MPI C API that
 * perf/mpi_comm.cpp calls, with the semantics of a singleton MPI_COMM_WORLD of one rank (every
 * collective copies the send buffer to the receive buffer; a sendrecv must name rank 0). A binary
 * built against it runs `bench --backend nccl -g N`, `topo`, `doctor`, and the MPI backend with
 * one rank; it cannot join an mpirun job. Not part of the normal build. */
#ifndef FABDIAG_MPI_SINGLETON_H
#define FABDIAG_MPI_SINGLETON_H

#ifdef __cplusplus
extern "C" {
#endif

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef struct { int MPI_SOURCE, MPI_TAG, MPI_ERROR; } MPI_Status;

#define MPI_SUCCESS 0
#define MPI_ERR_OTHER 15
#define MPI_COMM_WORLD 1
#define MPI_ERRORS_RETURN 1
#define MPI_THREAD_FUNNELED 1
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_VERSION 3
#define MPI_SUBVERSION 1
/* Datatypes are their size in bytes times 16 plus a tag, so the stub knows each one's size. */
#define MPI_BYTE (1 * 16 + 0)
#define MPI_CHAR (1 * 16 + 1)
#define MPI_UINT8_T (1 * 16 + 2)
#define MPI_INT (4 * 16 + 3)
#define MPI_INT32_T (4 * 16 + 4)
#define MPI_FLOAT (4 * 16 + 5)
#define MPI_INT64_T (8 * 16 + 6)
#define MPI_LONG_LONG (8 * 16 + 7)
#define MPI_DOUBLE (8 * 16 + 8)
#define MPI_SUM 1
#define MPI_MAX 2

int MPI_Init(int* argc, char*** argv);
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided);
int MPI_Initialized(int* flag);
int MPI_Finalized(int* flag);
int MPI_Finalize(void);
int MPI_Abort(MPI_Comm comm, int code);
int MPI_Comm_rank(MPI_Comm comm, int* rank);
int MPI_Comm_size(MPI_Comm comm, int* size);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler h);
int MPI_Error_string(int code, char* text, int* len);
int MPI_Get_library_version(char* text, int* len);
int MPI_Get_version(int* major, int* minor);
double MPI_Wtime(void);
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm comm);
int MPI_Allreduce(const void* send, void* recv, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm);
int MPI_Reduce(const void* send, void* recv, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm);
int MPI_Reduce_scatter_block(const void* send, void* recv, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm);
int MPI_Allgather(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt,
                  MPI_Comm comm);
int MPI_Alltoall(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt,
                 MPI_Comm comm);
int MPI_Gather(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt, int root,
               MPI_Comm comm);
int MPI_Scatter(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt, int root,
                MPI_Comm comm);
int MPI_Allgatherv(const void* send, int scount, MPI_Datatype st, void* recv, const int* rcounts, const int* displs,
                   MPI_Datatype rt, MPI_Comm comm);
int MPI_Gatherv(const void* send, int scount, MPI_Datatype st, void* recv, const int* rcounts, const int* displs,
                MPI_Datatype rt, int root, MPI_Comm comm);
int MPI_Sendrecv(const void* send, int scount, MPI_Datatype st, int dest, int stag, void* recv, int rcount,
                 MPI_Datatype rt, int source, int rtag, MPI_Comm comm, MPI_Status* status);

#ifdef __cplusplus
}
#endif

#endif
