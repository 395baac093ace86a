// local_rank_of (perf/nccl_world.h): which GPU a rank of an MPI job drives under --backend nccl.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "core/environment.h"
#include "perf/nccl_world.h"

using fabdiag::MapEnvironment;
using fabdiag::perf::local_rank_of;

namespace {
MapEnvironment env(std::map<std::string, std::string> vars) { return MapEnvironment(std::move(vars)); }
}  // namespace

TEST_CASE("local_rank_of takes the launcher's local rank variable, in the documented order") {
  const std::vector<std::string> hosts = {"node01", "node01", "node02", "node02"};
  CHECK(local_rank_of(env({{"OMPI_COMM_WORLD_LOCAL_RANK", "5"}}), hosts, 0) == 5);
  CHECK(local_rank_of(env({{"MPI_LOCALRANKID", "2"}, {"SLURM_LOCALID", "7"}}), hosts, 0) == 2);
  CHECK(local_rank_of(env({{"SLURM_LOCALID", "7"}, {"PMI_LOCAL_RANK", "1"}}), hosts, 0) == 7);
  CHECK(local_rank_of(env({{"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"SLURM_LOCALID", "3"}}), hosts, 0) == 1);
}

TEST_CASE("local_rank_of counts the lower ranks on the same host without a launcher variable") {
  const std::vector<std::string> hosts = {"node01", "node02", "node01", "node02", "node01"};
  const MapEnvironment none;
  CHECK(local_rank_of(none, hosts, 0) == 0);
  CHECK(local_rank_of(none, hosts, 1) == 0);
  CHECK(local_rank_of(none, hosts, 2) == 1);
  CHECK(local_rank_of(none, hosts, 3) == 1);
  CHECK(local_rank_of(none, hosts, 4) == 2);
}

TEST_CASE("local_rank_of skips a launcher variable that is empty or not a number") {
  const std::vector<std::string> hosts = {"a", "a", "a"};
  CHECK(local_rank_of(env({{"OMPI_COMM_WORLD_LOCAL_RANK", ""}, {"SLURM_LOCALID", "1"}}), hosts, 2) == 1);
  CHECK(local_rank_of(env({{"OMPI_COMM_WORLD_LOCAL_RANK", "x1"}}), hosts, 2) == 2);
  CHECK(local_rank_of(env({{"OMPI_COMM_WORLD_LOCAL_RANK", "-1"}}), hosts, 1) == 1);
  CHECK(local_rank_of(env({{"OMPI_COMM_WORLD_LOCAL_RANK", "99999999999"}}), hosts, 1) == 1);
}
