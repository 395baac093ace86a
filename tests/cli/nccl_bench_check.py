#!/usr/bin/env python3
"""Checks one `fabdiag bench --backend nccl --format json` result against the fakes
(tests/fakes/): backend and rank count, algbw = size/time, busbw = algbw x the nccl-tests factor
(recomputed here, not read from perf/bandwidth.cpp), per-rank times whose max is the row's time,
#wrong = 0 or > 0 with a data_corruption finding.
Usage: nccl_bench_check.py FILE RANKS zero|some gpus|mpi
  gpus: one process, -g RANKS (params.gpus); mpi: one rank per GPU under mpirun (params.launch,
  one host entry per rank)."""
import json, sys
doc = json.load(open(sys.argv[1]))
n, wrong, launch = int(sys.argv[2]), sys.argv[3], sys.argv[4]
d = doc["data"]
name = sys.argv[1]
factor = {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n, "reduce_scatter": (n - 1) / n,
          "alltoall": (n - 1) / n, "broadcast": 1.0, "reduce": 1.0, "sendrecv": 1.0}[d["collective"]]
errors = []
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
    if abs(row["algbw_bytes_per_s"] - size / t) > 1e-9 * size / t:
        errors.append("size %d: algbw %r != size/time %r" % (size, row["algbw_bytes_per_s"], size / t))
    if abs(row["busbw_bytes_per_s"] - factor * size / t) > 1e-9 * size / t:
        errors.append("size %d: busbw %r != %r x algbw" % (size, row["busbw_bytes_per_s"], factor))
    if (wrong == "zero") != (row["wrong_elements"] == 0):
        errors.append("size %d: %d wrong elements, want %s" % (size, row["wrong_elements"], wrong))
if wrong == "some" and not any(f["code"] == "data_corruption" for f in doc["findings"]):
    errors.append("no data_corruption finding")
for e in errors: print("FAIL %s: %s" % (name, e))
sys.exit(1 if errors else 0)
