#include "fake_nccl_log.h"

#include <nccl.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace fake_nccl {

namespace {

std::mutex log_mu;
FILE* log_file = nullptr;
bool log_opened = false;

std::string host_name() {
  char h[256] = {};
  gethostname(h, sizeof h - 1);
  return h;
}

// NCCL_DEBUG_FILE with %h and %p expanded (NCCL's ncclDebugInit), opened once.
FILE* open_log() {
  if (log_opened) return log_file;
  log_opened = true;
  const char* level = std::getenv("NCCL_DEBUG");
  const char* file = std::getenv("NCCL_DEBUG_FILE");
  if (!level || !file || (strcasecmp(level, "INFO") != 0 && strcasecmp(level, "TRACE") != 0)) return nullptr;
  std::string path;
  for (const char* c = file; *c; ++c) {
    if (c[0] == '%' && c[1] == 'h') path += host_name(), ++c;
    else if (c[0] == '%' && c[1] == 'p') path += std::to_string(getpid()), ++c;
    else path += *c;
  }
  log_file = std::fopen(path.c_str(), "w");
  if (log_file) setlinebuf(log_file);
  return log_file;
}

}  // namespace

void log_comm_init(int rank, int nranks, int dev, bool one_process) {
  std::lock_guard lk(log_mu);
  FILE* f = open_log();
  if (!f) return;
  const std::string prefix = host_name() + ":" + std::to_string(getpid()) + ":" +
                             std::to_string(static_cast<long>(syscall(SYS_gettid))) + " [" + std::to_string(dev) +
                             "] NCCL INFO ";
  auto line = [&](const std::string& text) { std::fprintf(f, "%s%s\n", prefix.c_str(), text.c_str()); };
  const int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
  char bus[16];
  std::snprintf(bus, sizeof bus, "%x000", 0x10 + dev);
  line("NCCL version " + std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + "." +
       std::to_string(NCCL_PATCH) + "+cuda13.0");
  line("Bootstrap : Using lo:127.0.0.1<0>");
  const char* net_env = std::getenv("FAKE_NCCL_NET");
  const std::string net = one_process ? "none" : (net_env && *net_env ? net_env : "IB");
  const bool gdr = std::getenv("FAKE_NCCL_GDR") == nullptr || std::string(std::getenv("FAKE_NCCL_GDR")) != "0";
  std::string via;
  if (net == "IB") {
    line("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB lo:127.0.0.1<0>");
    line("Using network IB");
    line(gdr ? "NET/IB : GPU Direct RDMA Enabled for GPU " + std::string(bus) + " / HCA 0 (distance 3 <= 5), read 1 mode Default"
             : std::string("NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'"));
    via = gdr ? "NET/IB/0/GDRDMA" : "NET/IB/0";
  } else if (net == "Socket") {
    line("NET/IB : No device found.");
    line("NET/Socket : Using [0]lo:127.0.0.1<0>");
    line("Using network Socket");
    via = "NET/Socket/0";
  }
  line("comm 0x" + std::to_string(1000 + rank) + " rank " + std::to_string(rank) + " nranks " + std::to_string(nranks) +
       " cudaDev " + std::to_string(dev) + " nvmlDev " + std::to_string(dev) + " busId " + bus + " commId 0x1 - Init START");
  if (nranks < 2) return;
  if (via.empty()) {  // one host: the next GPU over NVLink/PCIe
    line("Channel 00/0 : " + std::to_string(rank) + "[" + std::to_string(dev) + "] -> " + std::to_string(next) + "[" +
         std::to_string(one_process ? next : dev) + "] via " + (one_process ? "P2P/IPC" : "SHM/direct/direct"));
    return;
  }
  line("Channel 00/0 : " + std::to_string(rank) + "[" + std::to_string(dev) + "] -> " + std::to_string(next) + "[" +
       std::to_string(dev) + "] [send] via " + via);
  line("Channel 00/0 : " + std::to_string(prev) + "[" + std::to_string(dev) + "] -> " + std::to_string(rank) + "[" +
       std::to_string(dev) + "] [receive] via " + via);
}

}  // namespace fake_nccl
