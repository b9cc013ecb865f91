#!/usr/bin/env python3
"""prims_summary.py hipgo.txt cub.txt cupy.txt: one line per primitive,
type and size: hipgo's median GPU time (gpu-ns/op of go test -bench,
median over -count), CUB's and CuPy's (median by CUDA events), and the
ratio CUB/hipgo (above 1: hipgo is faster). An _LSD row is hipgo's
pass-by-pass radix sort beside the peers' times of the same sort, an
@bN_iM row the look-back scan at another tile beside the same scan's."""
import re, statistics, sys

# hipgo benchmark name -> (primitive, type) as the peers print them
names = {
    "TransformAdd": ("add", "float32"),
    "Copy": ("memcpy_d2d", "float32"),
    "Reduce/sum/float32": ("sum", "float32"),
    "Reduce/sum/int32": ("sum", "int32"),
    "Reduce/sum/float64": ("sum", "float64"),
    "Reduce/min/float32": ("min", "float32"),
    "Reduce/argmin/float32": ("argmin", "float32"),
    "Scan/inclusive_sum/int32": ("inclusive_sum", "int32"),
    "Scan/exclusive_sum/int32": ("exclusive_sum", "int32"),
    "Scan/inclusive_sum/float32": ("inclusive_sum", "float32"),
    "Scan/exclusive_sum/float32": ("exclusive_sum", "float32"),
    "SortKeys/uint32": ("sort_keys", "uint32"),
    "SortKeys/float32": ("sort_keys", "float32"),
    "SortKeys/uint64": ("sort_keys", "uint64"),
    "SortPairs/uint32-uint32": ("sort_pairs", "uint32-uint32"),
    # The GPU's pass-by-pass sort (sortLSD) beside Onesweep and the same CUB sort.
    "SortKeysLSD/uint32": ("sort_keys_LSD", "uint32"),
    "SortKeysLSD/float32": ("sort_keys_LSD", "float32"),
    "SortKeysLSD/uint64": ("sort_keys_LSD", "uint64"),
    "SortPairsLSD/uint32-uint32": ("sort_pairs_LSD", "uint32-uint32"),
    "MergeSortKeys/uint32": ("merge_sort_keys", "uint32"),
    "MergeSortKeys/float32": ("merge_sort_keys", "float32"),
    "MergeSortPairs/uint32-uint32": ("merge_sort_pairs", "uint32-uint32"),
    "Histogram/uint8-256": ("histogram256", "uint8"),
    "Scan3Pass/inclusive_sum/int32": ("inclusive_sum_3pass", "int32"),
    # The look-back scan at other tiles (BenchmarkScanLookBack's shapes),
    # each beside CUB's same scan.
    "ScanLookBack/b128_i15/inclusive_sum/int32": ("inclusive_sum@b128_i15", "int32"),
    "ScanLookBack/b128_i15/exclusive_sum/float32": ("exclusive_sum@b128_i15", "float32"),
    "ScanLookBack/b128_i23/inclusive_sum/int32": ("inclusive_sum@b128_i23", "int32"),
    "ScanLookBack/b128_i23/exclusive_sum/float32": ("exclusive_sum@b128_i23", "float32"),
    "ScanLookBack/b192_i23/inclusive_sum/int32": ("inclusive_sum@b192_i23", "int32"),
    "ScanLookBack/b192_i23/exclusive_sum/float32": ("exclusive_sum@b192_i23", "float32"),
    "ScanLookBack/b256_i11/inclusive_sum/int32": ("inclusive_sum@b256_i11", "int32"),
    "ScanLookBack/b256_i11/exclusive_sum/float32": ("exclusive_sum@b256_i11", "float32"),
    "ScanLookBack/b256_i15/inclusive_sum/int32": ("inclusive_sum@b256_i15", "int32"),
    "ScanLookBack/b256_i15/exclusive_sum/float32": ("exclusive_sum@b256_i15", "float32"),
    "ScanLookBack/b256_i19/inclusive_sum/int32": ("inclusive_sum@b256_i19", "int32"),
    "ScanLookBack/b256_i19/exclusive_sum/float32": ("exclusive_sum@b256_i19", "float32"),
    "ScanLookBack/b512_i11/inclusive_sum/int32": ("inclusive_sum@b512_i11", "int32"),
    "ScanLookBack/b512_i11/exclusive_sum/float32": ("exclusive_sum@b512_i11", "float32"),
    "ScanByKey3Pass/inclusive_sum/int32-int32": ("inclusive_sum_by_key_3pass", "int32-int32"),
    "SegmentedReduce/sum/float32": ("segmented_sum", "float32"),
    "Select/flagged/int32": ("select_flagged", "int32"),
    "Select/partition_flagged/int32": ("partition_flagged", "int32"),
    "Select/unique/int32": ("unique", "int32"),
    "RunLengthEncode/int32": ("rle_encode", "int32"),
    "ScanByKey/inclusive_sum/int32-int32": ("inclusive_sum_by_key", "int32-int32"),
}
hip = {}
for line in open(sys.argv[1]):
    m = re.match(r"Benchmark(\S+?)/2\^(\d+)(-\d+)?\s+\d+\s+.*?([\d.]+) gpu-ns/op", line)
    if m and m.group(1) in names:
        key = names[m.group(1)] + (1 << int(m.group(2)),)
        hip.setdefault(key, []).append(float(m.group(4)) / 1000)
peers = [{}, {}]
for i, f in enumerate(sys.argv[2:4]):
    try:
        for line in open(f):
            p = line.split()
            if len(p) == 5 and p[0] in ("cub", "cupy"):
                peers[i][(p[1], p[2], int(p[3]))] = float(p[4])
    except OSError:
        pass
print("%-15s %-14s %10s %11s %11s %11s %9s" % ("primitive", "type", "n", "hipgo_us", "cub_us", "cupy_us", "cub/hipgo"))
for key in sorted(set(hip) | set(peers[0]), key=lambda k: (k[0], k[1], k[2])):
    h = statistics.median(hip[key]) if key in hip else None
    peer = (key[0].removesuffix("_LSD").split("@")[0],) + key[1:]
    c, y = peers[0].get(peer), peers[1].get(peer)
    if key[0] == "exclusive_sum" and y is None:
        y = None
    fmt = lambda v: "%11.2f" % v if v is not None else "%11s" % "-"
    ratio = "%8.3fx" % (c / h) if c and h else "%9s" % "-"
    print("%-15s %-14s %10d %s %s %s %s" % (key[0], key[1], key[2], fmt(h), fmt(c), fmt(y), ratio))
