// NCCL's INFO lines as the fake libnccl (tests/fakes/fake_nccl.cpp) writes them, so the NCCL
// backend's capture of NCCL_DEBUG_FILE (cmd/nccl_info_capture.h) is tested without a GPU.
// Written only when NCCL_DEBUG is INFO or TRACE and NCCL_DEBUG_FILE is set, to that file with
// %h replaced by the host name and %p by the process id, opened once per process with "w" and
// line buffered, as NCCL's src/debug.cc does. The wording is NCCL 2.2x's (copied from the real
// logs under tests/fixtures: "NCCL version", "Bootstrap : Using", "NET/IB : Using ... [RO]; OOB",
// "Using network IB", "GPU Direct RDMA Enabled for GPU ... / HCA 0 (distance 3 <= 5), read 1
// mode Default", "comm 0x... rank R nranks N cudaDev D ... - Init START", "Channel 00/0 :
// R[D] -> S[E] [send] via NET/IB/0/GDRDMA").
//
// Environment:
//   FAKE_NCCL_NET=IB|Socket|none  the inter-node transport the lines of ncclCommInitRank name
//                            (default IB); ncclCommInitAll (one process) always logs P2P/IPC.
//   FAKE_NCCL_GDR=0          NET/IB without GPUDirect RDMA: "GPU Direct RDMA Disabled for HCA"
//                            and channels without /GDRDMA.
#pragma once

namespace fake_nccl {

/// The init lines of rank `rank` of `nranks` on CUDA device `dev`; `one_process`: a
/// communicator of ncclCommInitAll (its channels P2P/IPC to the next GPU), else of
/// ncclCommInitRank (its channels over FAKE_NCCL_NET to the next and from the previous rank).
void log_comm_init(int rank, int nranks, int dev, bool one_process);

}  // namespace fake_nccl
