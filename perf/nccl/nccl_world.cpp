#include "perf/nccl_world.h"

#include <cstring>

#include "core/envelope.h"
#include "perf/nccl/nccl_api.h"
#include "perf/nccl/nccl_comm.h"

namespace fabdiag::perf {

struct NcclWorld::Impl {
  explicit Impl(Comm& h) : host(h), exchange(h) {}
  ~Impl() {
    rank_comm.reset();  // its stream and events first
    if (comm) api->nccl.comm_destroy(comm);
  }
  Comm& host;
  CommHostExchange exchange;
  std::shared_ptr<const NcclApi> api;
  ncclComm_t comm = nullptr;
  int device = 0;
  std::unique_ptr<NcclComm> rank_comm;
};

namespace {

// Everything this rank can check alone before the collective init: the libraries and its GPU.
Result<std::shared_ptr<const NcclApi>> local_checks(const Environment& env, int device, const std::string& who) {
  auto api = load_nccl_api(env);
  if (!api) return api.error();
  auto visible = visible_gpu_count(**api);
  if (!visible) return visible.error();
  if (device >= *visible)
    return make_error(ErrorCode::kUnsupported,
                      who + " has local rank " + std::to_string(device) + " and needs GPU " + std::to_string(device) +
                          ", but " + std::to_string(*visible) + " are visible (one rank per GPU: at most " +
                          std::to_string(*visible) + " ranks per host)",
                      "libcudart (" + (*api)->cuda.path + ")");
  return api;
}

// The gathered outcome of local_checks: the first failing rank's error on every rank.
Status agree(Comm& host, const Status& mine) {
  auto all = host.allgather_strings(mine ? std::string() : mine.error().to_string());
  if (!all) return all.error().with_context("gathering the NCCL start-up checks of all ranks");
  for (size_t r = 0; r < all->size(); ++r)
    if (!(*all)[r].empty())
      return make_error(ErrorCode::kUnsupported, (*all)[r], host.describe_rank(static_cast<int>(r)));
  return Ok{};
}

// Rank 0's unique id, broadcast over MPI as its 128 bytes (empty when rank 0 could not make one).
Result<ncclUniqueId> shared_unique_id(Comm& host, const NcclApi& api) {
  ncclUniqueId id;
  std::memset(&id, 0, sizeof id);
  std::string mine;
  std::string why;
  if (host.rank() == 0) {
    ncclResult_t rc = api.nccl.get_unique_id(&id);
    if (rc == ncclSuccess) mine.assign(reinterpret_cast<const char*>(&id), sizeof id);
    else why = api.nccl.error_text(rc);
  }
  auto got = host.broadcast_string(mine, 0);
  if (!got) return got.error().with_context("broadcasting the NCCL unique id");
  if (got->size() != sizeof id)
    return make_error(ErrorCode::kUnsupported, "ncclGetUniqueId failed on rank 0" + (why.empty() ? "" : ": " + why),
                      host.describe_rank(0) + " libnccl (" + api.nccl.path + ")");
  std::memcpy(&id, got->data(), sizeof id);
  return id;
}

// The parts of a split-off communicator that its NcclComm uses but does not own: the group's
// MPI Comm and the NCCL communicator. A base of NcclSubComm, so they outlive its NcclComm part.
struct SubCommParts {
  SubCommParts(const NcclApi& a, std::unique_ptr<Comm> h, ncclComm_t c) : api(a), host(std::move(h)), exchange(*host), comm(c) {}
  ~SubCommParts() {
    if (comm) api.nccl.comm_destroy(comm);
  }
  SubCommParts(const SubCommParts&) = delete;
  SubCommParts& operator=(const SubCommParts&) = delete;
  const NcclApi& api;
  std::unique_ptr<Comm> host;
  CommHostExchange exchange;
  ncclComm_t comm;
};

class NcclSubComm final : private SubCommParts, public NcclComm {
 public:
  NcclSubComm(const NcclApi& api, std::unique_ptr<Comm> host, ncclComm_t comm, int device)
      : SubCommParts(api, std::move(host), comm),
        NcclComm(api, comm, SubCommParts::host->rank(), SubCommParts::host->size(), device, SubCommParts::exchange,
                 SubCommParts::host->hosts()) {}
};

}  // namespace

Result<std::unique_ptr<Comm>> NcclComm::split(int color, int key) {
  Comm* host = rv_.host_comm();
  if (!host)
    return make_error(ErrorCode::kUnsupported, "splitting a communicator needs one rank per process (mpirun)",
                      describe_rank(rank_));
  auto group = host->split(color, key);
  if (!group) return group.error();
  ncclComm_t sub = nullptr;
  if (api_.nccl.comm_split) {
    // Collective over this communicator: every rank calls it, NCCL_SPLIT_NOCOLOR outside a group.
    if (auto st = nccl_check(api_.nccl.comm_split(comm_, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &sub, nullptr),
                             "ncclCommSplit(color " + std::to_string(color) + ")");
        !st)
      return st.error();
  } else if (*group) {
    Comm& g = **group;
    auto id = shared_unique_id(g, api_);
    if (!id) return id.error();
    if (auto st = cuda_check(api_.cuda.set_device(device_), "cudaSetDevice(" + std::to_string(device_) + ")"); !st)
      return st.error();
    if (auto st = nccl_check(api_.nccl.comm_init_rank(&sub, g.size(), *id, g.rank()),
                             "ncclCommInitRank (group of " + std::to_string(g.size()) + ")");
        !st)
      return st.error();
  }
  if (!*group) return std::unique_ptr<Comm>();
  auto out = std::make_unique<NcclSubComm>(api_, std::move(*group), sub, device_);
  if (auto st = out->open(); !st) return st.error();
  return std::unique_ptr<Comm>(std::move(out));
}

NcclWorld::NcclWorld() = default;
NcclWorld::~NcclWorld() = default;

Result<std::unique_ptr<NcclWorld>> NcclWorld::open(Comm& host, const Environment& env, bool* every_rank_failed,
                                                   int device) {
  if (every_rank_failed) *every_rank_failed = true;
  std::unique_ptr<NcclWorld> w(new NcclWorld());
  w->impl_ = std::make_unique<Impl>(host);
  Impl& im = *w->impl_;
  const std::string who = host.describe_rank(host.rank());
  im.device = device >= 0 ? device : local_rank_of(env, host.hosts(), host.rank());
  auto api = local_checks(env, im.device, who);
  if (auto st = agree(host, api ? Status(Ok{}) : Status(api.error())); !st) return st.error();
  im.api = *api;
  auto id = shared_unique_id(host, *im.api);
  if (!id) return id.error();
  if (cudaError_t rc = im.api->cuda.set_device(im.device); rc != cudaSuccess)
    return make_error(ErrorCode::kUnsupported, "cudaSetDevice(" + std::to_string(im.device) + ") failed: " +
                                                   im.api->cuda.error_text(rc), who);
  ncclResult_t rc = im.api->nccl.comm_init_rank(&im.comm, host.size(), *id, host.rank());
  if (rc != ncclSuccess) {
    im.comm = nullptr;
    if (every_rank_failed) *every_rank_failed = false;
    return make_error(ErrorCode::kUnsupported,
                      "ncclCommInitRank(" + std::to_string(host.size()) + " ranks, rank " + std::to_string(host.rank()) +
                          ", GPU " + std::to_string(im.device) + ") failed: " + im.api->nccl.error_text(rc),
                      who + " libnccl (" + im.api->nccl.path + ")");
  }
  im.rank_comm = std::make_unique<NcclComm>(*im.api, im.comm, host.rank(), host.size(), im.device, im.exchange,
                                            host.hosts());
  if (auto st = im.rank_comm->open(); !st) {
    if (every_rank_failed) *every_rank_failed = false;
    return st.error();
  }
  return w;
}

Comm& NcclWorld::comm() { return *impl_->rank_comm; }
int NcclWorld::device() const { return impl_->device; }
std::string NcclWorld::split_method() const {
  return impl_->api->nccl.comm_split ? "ncclCommSplit" : "ncclCommInitRank";
}
int NcclWorld::nccl_version_code() const { return impl_->api->nccl.version_code; }
std::string NcclWorld::nccl_library_path() const { return impl_->api->nccl.path; }

}  // namespace fabdiag::perf
