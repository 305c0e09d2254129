#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Where the guest instructions of a bench_evp case go, per function: the
# difference between two runs (K and 2K updates or messages) divided by K, as
# scripts/bench_s390x.sh computes its totals, attributed to the function each
# translation block starts in. A diagnostic, not part of the benchmark.
#
#   bench/insn_profile.py [--prefix DIR]... [--nm NM] [--top N] K LOG1 OUT1 LOG2 OUT2
#
# LOGn: the QEMU log of a run with the plugin's `profile=on` argument
# (bench/qemu_insncount.c); OUTn: bench_evp's stdout of that run, with
# --objects (the code ranges and load addresses of every loaded object).
# --prefix: directories to look for guest paths in (QEMU_LD_PREFIX and the
# like); NM: the target's nm (default s390x-linux-gnu-nm).
import argparse
import bisect
import collections
import os
import subprocess


def objects_of(out_path):
    objs = []
    for line in open(out_path):
        if line.startswith("object: "):
            rng, base, path = line[len("object: "):].split(None, 2)
            lo, hi = (int(x, 16) for x in rng.split("-"))
            objs.append((lo, hi, int(base, 16), path.strip()))
    return objs


def tb_counts(log_path):
    counts = collections.Counter()
    for line in open(log_path):
        if line.startswith("tb "):
            _, pc, n = line.split()
            counts[int(pc, 16)] += int(n)
    return counts


class Symbols:
    def __init__(self, nm, prefixes):
        self.nm, self.prefixes, self.cache = nm, prefixes, {}

    def host_path(self, path):
        for p in [path] + [os.path.join(d, path.lstrip("/")) for d in self.prefixes]:
            if os.path.exists(p):
                return p
        return None

    def table(self, path):
        if path in self.cache:
            return self.cache[path]
        host = self.host_path(path)
        syms = {}
        if host:
            for flags in (["-C", "--defined-only"], ["-C", "-D", "--defined-only"]):
                r = subprocess.run([self.nm] + flags + [host], capture_output=True, text=True)
                for line in r.stdout.splitlines():
                    parts = line.split(None, 2)
                    if len(parts) == 3 and parts[1] in "tTwWiI":
                        syms.setdefault(int(parts[0], 16), parts[2])
        addrs = sorted(syms)
        self.cache[path] = (addrs, [syms[a] for a in addrs])
        return self.cache[path]

    def name(self, objs, pc):
        for lo, hi, base, path in objs:
            if lo <= pc < hi:
                addrs, names = self.table(path)
                off = pc - base
                i = bisect.bisect_right(addrs, off) - 1
                short = os.path.basename(path)
                return f"{short}: {names[i] if i >= 0 else hex(off)}"
        return f"? {pc:#x}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", action="append", default=[])
    ap.add_argument("--nm", default="s390x-linux-gnu-nm")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("k", type=int)
    ap.add_argument("log1")
    ap.add_argument("out1")
    ap.add_argument("log2")
    ap.add_argument("out2")
    a = ap.parse_args()
    syms = Symbols(a.nm, a.prefix)
    per_fn = collections.Counter()
    for sign, log, out in ((-1, a.log1, a.out1), (1, a.log2, a.out2)):
        objs = objects_of(out)
        for pc, n in tb_counts(log).items():
            per_fn[syms.name(objs, pc)] += sign * n
    rows = [(v / a.k, f) for f, v in per_fn.items() if v != 0]
    rows.sort(key=lambda r: -abs(r[0]))
    total = sum(v for v, _ in rows)
    by_obj = collections.Counter()
    for v, f in rows:
        by_obj[f.split(":")[0]] += v
    print(f"total per unit: {total:.1f}")
    for o, v in by_obj.most_common():
        print(f"  {v:10.1f}  {o}")
    for v, f in rows[: a.top]:
        print(f"{v:10.1f}  {f}")


if __name__ == "__main__":
    main()
