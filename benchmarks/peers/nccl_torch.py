"""nccl_torch.py: the torch.distributed peer of gpu/collective's
BenchmarkAllReduce: an in-place float32 sum all-reduce over every GPU
(one process per GPU, started with torch.multiprocessing, no torchrun),
NCCL backend, queued back to back; ns/op is the time per all-reduce once
the GPU has finished. Prints Go benchmark lines that benchstat and
benchmarks/report read:

    BenchmarkTorchAllReduce/<size> <iters> <ns/op> ns/op <algbw> algbw_GB/s <busbw> busbw_GB/s <n> ranks

    python3 nccl_torch.py [ranks] [count]

NVLink multicast stays off (NCCL_NVLS_ENABLE=0) in this process and in
every process it starts.
"""
import os
import sys
import time

os.environ["NCCL_NVLS_ENABLE"] = "0"

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

SIZES = [("8B", 8, 2000), ("1MiB", 1 << 20, 1000), ("256MiB", 256 << 20, 50)]


def worker(rank, world, port, count, queue):
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    for name, size, iters in SIZES:
        x = torch.ones(size // 4, dtype=torch.float32, device="cuda")
        for _ in range(5):  # warm up, as the Go benchmark does
            dist.all_reduce(x)
        torch.cuda.synchronize()
        for _ in range(count):
            dist.barrier()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(iters):
                dist.all_reduce(x)
            torch.cuda.synchronize()
            sec = (time.perf_counter() - t0) / iters
            if rank == 0:
                algbw = size / sec / 1e9
                busbw = algbw * 2 * (world - 1) / world
                queue.put(f"BenchmarkTorchAllReduce/{name} {iters} {sec * 1e9:.0f} ns/op "
                          f"{algbw:.4f} algbw_GB/s {busbw:.4f} busbw_GB/s {world} ranks")
    dist.destroy_process_group()


def main():
    world = int(sys.argv[1]) if len(sys.argv) > 1 else torch.cuda.device_count()
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    if world < 2:
        sys.exit(f"nccl_torch.py: {world} GPU(s); an all-reduce needs two")
    ctx = mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    port = 29500 + os.getpid() % 1000
    mp.spawn(worker, args=(world, port, count, queue), nprocs=world, join=True)
    print(f"# torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}")
    while not queue.empty():
        print(queue.get())


if __name__ == "__main__":
    main()
