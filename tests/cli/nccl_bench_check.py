#!/usr/bin/env python3
"""Checks one `fabdiag bench --backend nccl --format json` result against the fakes
(tests/fakes/): backend, rank count and devices, algbw = size/time (hypercube: (n-1)/n x
size/time), busbw = algbw x the nccl-tests factor (recomputed here, not read from
perf/bandwidth.cpp), per-rank times whose max is the row's time, ordered per-iteration
statistics, #wrong = 0 or > 0 with a data_corruption finding; the same for every row's in-place
half (in_place), whose alltoall #wrong is null (not checked, as nccl-tests).
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
def check_half(size, h, label):
    """One placement of a row: times, bandwidths, iteration statistics, #wrong."""
    t = h["time_s"]
    if not t > 0: errors.append("size %d%s: time %r" % (size, label, t)); return
    if len(h["per_rank_time_s"]) != n or max(h["per_rank_time_s"]) != t:
        errors.append("size %d%s: per-rank times %r, time %r" % (size, label, h["per_rank_time_s"], t))
    if abs(h["algbw_bytes_per_s"] - alg * size / t) > 1e-9 * size / t:
        errors.append("size %d%s: algbw %r != %r x size/time %r" % (size, label, h["algbw_bytes_per_s"], alg, size / t))
    if abs(h["busbw_bytes_per_s"] - factor * alg * size / t) > 1e-9 * size / t:
        errors.append("size %d%s: busbw %r != %r x algbw" % (size, label, h["busbw_bytes_per_s"], factor))
    it = h.get("iteration_stats", {})
    if it.get("samples") != samples or not (0 <= it["min_s"] <= it["p50_s"] <= it["p99_s"] <= it["max_s"]) \
       or not it["min_s"] <= it["mean_s"] <= it["max_s"] or it["cv"] < 0:
        errors.append("size %d%s: iteration_stats %r (want %d samples, ordered)" % (size, label, it, samples))
    per_max = h.get("per_rank_iteration_max_s", [])
    if len(per_max) != n or max(per_max) > it.get("max_s", 0) * (1 + 1e-12):
        errors.append("size %d%s: per_rank_iteration_max_s %r vs max %r" % (size, label, per_max, it.get("max_s")))
    w = h["wrong_elements"]
    if label and d["collective"] == "alltoall":  # nccl-tests does not check in-place alltoall either
        if w is not None: errors.append("size %d in place: alltoall #wrong %r, want null (not checked)" % (size, w))
    elif w is None or (wrong == "zero") != (w == 0):
        errors.append("size %d%s: %r wrong elements, want %s" % (size, label, w, wrong))

for row in d["results"]:
    check_half(row["size_bytes"], row, "")
    # The NCCL backend measures every size in place too (nccl-tests' second half of the row).
    if not isinstance(row.get("in_place"), dict): errors.append("size %d: no in_place half" % row["size_bytes"])
    else: check_half(row["size_bytes"], row["in_place"], " in place")
if wrong == "some" and not any(f["code"] == "data_corruption" for f in doc["findings"]):
    errors.append("no data_corruption finding")
for e in errors: print("FAIL %s: %s" % (name, e))
sys.exit(1 if errors else 0)
