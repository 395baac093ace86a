#!/usr/bin/env python3
"""Checks one `fabdiag bench --backend nccl --format json` result against the fakes
(tests/fakes/): backend, rank count and devices, algbw = size/time (hypercube: (n-1)/n x
size/time), busbw = algbw x the nccl-tests factor (recomputed here, not read from
perf/bandwidth.cpp), per-rank times whose max is the row's time, ordered per-iteration
statistics, #wrong = 0 or > 0 with a data_corruption finding.
Usage: nccl_bench_check.py FILE RANKS zero|some gpus|mpi
  gpus: one process, -g RANKS (params.gpus); mpi: one rank per GPU under mpirun (params.launch,
  one host entry per rank)."""
import json, sys
doc = json.load(open(sys.argv[1]))
n, wrong, launch = int(sys.argv[2]), sys.argv[3], sys.argv[4]
d = doc["data"]
name = sys.argv[1]
factor = {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n, "reduce_scatter": (n - 1) / n,
          "alltoall": (n - 1) / n, "broadcast": 1.0, "reduce": 1.0, "sendrecv": 1.0,
          "gather": (n - 1) / n, "scatter": (n - 1) / n, "hypercube": 1.0}[d["collective"]]
# HyperCubeGetBw: algbw counts the n-1 received blocks of the n-block "size".
alg = (n - 1) / n if d["collective"] == "hypercube" else 1.0
errors = []
launches = d.get("graph_launches", 0)
samples = launches if launches > 0 else d["iters"]
devices = d.get("devices", [])
if [x.get("name") for x in devices] != ["Fake GPU %d" % r for r in range(n)] or \
   [x.get("bus_id") for x in devices] != ["0000:%02x:00" % (0x10 + r) for r in range(n)]:
    errors.append("devices %r" % devices)
if d["backend"] != "nccl": errors.append("backend %r" % d["backend"])
if d["ranks"] != n: errors.append("ranks %r" % d["ranks"])
if launch == "gpus" and doc["params"].get("gpus") != n:
    errors.append("params.gpus %r" % doc["params"].get("gpus"))
if launch == "mpi":
    p = doc["params"]
    if p.get("launch") != "mpi, one rank per GPU": errors.append("params.launch %r" % p.get("launch"))
    if len(d.get("hosts", [])) != n: errors.append("hosts %r, want one per rank" % d.get("hosts"))
if not d["results"]: errors.append("no rows")
for row in d["results"]:
    t, size = row["time_s"], row["size_bytes"]
    if not t > 0: errors.append("size %d: time %r" % (size, t)); continue
    if len(row["per_rank_time_s"]) != n or max(row["per_rank_time_s"]) != t:
        errors.append("size %d: per-rank times %r, time %r" % (size, row["per_rank_time_s"], t))
    if abs(row["algbw_bytes_per_s"] - alg * size / t) > 1e-9 * size / t:
        errors.append("size %d: algbw %r != %r x size/time %r" % (size, row["algbw_bytes_per_s"], alg, size / t))
    if abs(row["busbw_bytes_per_s"] - factor * alg * size / t) > 1e-9 * size / t:
        errors.append("size %d: busbw %r != %r x algbw" % (size, row["busbw_bytes_per_s"], factor))
    it = row.get("iteration_stats", {})
    if it.get("samples") != samples or not (0 <= it["min_s"] <= it["p50_s"] <= it["p99_s"] <= it["max_s"]) \
       or not it["min_s"] <= it["mean_s"] <= it["max_s"] or it["cv"] < 0:
        errors.append("size %d: iteration_stats %r (want %d samples, ordered)" % (size, it, samples))
    per_max = row.get("per_rank_iteration_max_s", [])
    if len(per_max) != n or max(per_max) > it.get("max_s", 0) * (1 + 1e-12):
        errors.append("size %d: per_rank_iteration_max_s %r vs max %r" % (size, per_max, it.get("max_s")))
    if (wrong == "zero") != (row["wrong_elements"] == 0):
        errors.append("size %d: %d wrong elements, want %s" % (size, row["wrong_elements"], wrong))
if wrong == "some" and not any(f["code"] == "data_corruption" for f in doc["findings"]):
    errors.append("no data_corruption finding")
for e in errors: print("FAIL %s: %s" % (name, e))
sys.exit(1 if errors else 0)
