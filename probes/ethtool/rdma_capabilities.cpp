#include "probes/ethtool/rdma_capabilities.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/build_config.h"

#if FABDIAG_HAVE_LIBNL
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#endif

namespace fabdiag {

Capability probe_ethtool_netlink_capability() {
  Capability c;
  c.name = "ethtool_netlink";
#if FABDIAG_HAVE_LIBNL
  c.compiled = true;
  nl_sock* sock = nl_socket_alloc();
  if (!sock) {
    c.why_not = "nl_socket_alloc failed (out of memory)";
    return c;
  }
  int rc = genl_connect(sock);
  if (rc < 0) {
    c.why_not = std::string("cannot open a generic netlink socket: ") + nl_geterror(rc);
    nl_socket_free(sock);
    return c;
  }
  nl_cache* cache = nullptr;
  rc = genl_ctrl_alloc_cache(sock, &cache);
  if (rc < 0) {
    c.why_not = std::string("cannot list generic netlink families: ") + nl_geterror(rc);
    nl_socket_free(sock);
    return c;
  }
  genl_family* fam = genl_ctrl_search_by_name(cache, "ethtool");
  if (!fam) {
    c.why_not = "the kernel has no \"ethtool\" generic netlink family (Linux < 5.6 or "
                "CONFIG_ETHTOOL_NETLINK off); the SIOCETHTOOL ioctl is used instead";
  } else {
    c.loaded = true;
    c.version = std::to_string(genl_family_get_version(fam));
    c.detail = "family id " + std::to_string(genl_family_get_id(fam));
    genl_family_put(fam);
  }
  nl_cache_free(cache);
  nl_socket_free(sock);
#else
  c.compiled = false;
  c.why_not = "built without libnl-genl-3 (install libnl-3-dev libnl-genl-3-dev and rebuild); "
              "driver statistics use the SIOCETHTOOL ioctl";
#endif
  return c;
}

Capability probe_ibverbs_capability() {
  Capability c;
  c.name = "ibverbs";
  c.compiled = true;  // loaded at run time, no headers needed
  void* lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = dlerror();
    c.why_not = std::string("libibverbs.so.1 not loadable (") + (err ? err : "unknown") +
                "); install rdma-core (libibverbs1) to list RDMA devices through verbs";
    return c;
  }
  // The three symbols we need, declared here instead of including <infiniband/verbs.h>.
  struct ibv_device;
  using GetList = ibv_device** (*)(int*);
  using FreeList = void (*)(ibv_device**);
  using GetName = const char* (*)(ibv_device*);
  auto get_list = reinterpret_cast<GetList>(dlsym(lib, "ibv_get_device_list"));
  auto free_list = reinterpret_cast<FreeList>(dlsym(lib, "ibv_free_device_list"));
  auto get_name = reinterpret_cast<GetName>(dlsym(lib, "ibv_get_device_name"));
  if (!get_list || !free_list || !get_name) {
    c.why_not = "libibverbs.so.1 lacks ibv_get_device_list/ibv_free_device_list/ibv_get_device_name";
    dlclose(lib);
    return c;
  }
  int n = 0;
  errno = 0;
  ibv_device** list = get_list(&n);
  int err = errno;
  if (!list) {
    if (err == ENOSYS) {
      c.loaded = true;
      c.detail = "no RDMA devices (ibv_get_device_list: errno 38 ENOSYS, no RDMA device on this host)";
    } else {
      c.why_not = std::string("ibv_get_device_list failed: ") + std::strerror(err);
    }
    dlclose(lib);
    return c;
  }
  c.loaded = true;
  if (n == 0) {
    c.detail = "no RDMA devices";
  } else {
    c.detail = std::to_string(n) + " RDMA device(s):";
    for (int i = 0; i < n; ++i) c.detail += std::string(" ") + get_name(list[i]);
  }
  free_list(list);
  // libibverbs keeps provider state; unloading it while providers are loaded is not safe.
  return c;
}

}  // namespace fabdiag
