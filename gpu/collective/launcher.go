package collective

import (
	"net"
	"os"
	"strconv"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
)

// Launch is where a launcher put this process: its rank among Size ranks,
// its place among the LocalSize ranks of its host, and the store that
// rank 0 serves (Addr, host:port). From names the launcher whose
// variables said so.
type Launch struct {
	Rank, Size           int
	LocalRank, LocalSize int // LocalSize is 0 where the launcher does not say
	Addr                 string
	From                 string // "torch", "openmpi", "mpich" or "slurm"
}

// launcherVars are the variables each launcher sets, in the order FromEnv
// tries them: torchrun (and torch.distributed.launch), Open MPI's mpirun,
// MPICH and Intel MPI's Hydra (PMI), and Slurm's srun. (PMIx gives a
// process its rank alone in the environment, PMIX_RANK; the launchers
// that use it set Open MPI's or Slurm's variables beside it.)
var launcherVars = []struct {
	from                         string
	rank, size, local, localSize string
}{
	{"torch", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
	{"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
	{"mpich", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
	{"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"},
}

// LaunchFromEnv reads where a launcher put this process: the first
// launcher of torchrun, Open MPI, MPICH (PMI) and Slurm whose rank
// variable is set gives rank, size and local rank (local rank 0 where it
// sets none). The store is at MASTER_ADDR:MASTER_PORT, as torch launchers
// set them and MPI and Slurm users export them. Under torchrun with its
// agent's store (TORCHELASTIC_USE_AGENT_STORE=True), that store already
// listens on MASTER_PORT, so hipgo's takes MASTER_PORT+1;
// HIPGO_STORE_PORT names a port of its own in every case.
func LaunchFromEnv() (Launch, error) { return launchFrom(os.Getenv) }

func launchFrom(getenv func(string) string) (Launch, error) {
	const op = "collective from env"
	num := func(name string) (int, bool, error) {
		v := getenv(name)
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, true, argErr(op, "%s=%q is not a rank or count", name, v)
		}
		return n, true, nil
	}
	var l Launch
	found := false
	for _, lv := range launcherVars {
		rank, ok, err := num(lv.rank)
		if err != nil {
			return l, err
		}
		if !ok {
			continue
		}
		size, ok, err := num(lv.size)
		if err != nil {
			return l, err
		}
		if !ok {
			return l, argErr(op, "%s is not set (%s is)", lv.size, lv.rank)
		}
		if rank >= size {
			return l, argErr(op, "%s=%d is not below %s=%d", lv.rank, rank, lv.size, size)
		}
		local, _, err := num(lv.local)
		if err != nil {
			return l, err
		}
		localSize, _, err := num(lv.localSize)
		if err != nil {
			return l, err
		}
		if localSize > 0 && local >= localSize {
			return l, argErr(op, "%s=%d is not below %s=%d", lv.local, local, lv.localSize, localSize)
		}
		l = Launch{Rank: rank, Size: size, LocalRank: local, LocalSize: localSize, From: lv.from}
		found = true
		break
	}
	if !found {
		return l, argErr(op, "RANK is not set (nor Open MPI's, MPICH's or Slurm's rank): start the ranks with torchrun, mpirun or srun, or set RANK and WORLD_SIZE")
	}
	host := getenv("MASTER_ADDR")
	port, havePort, err := num("MASTER_PORT")
	if err != nil {
		return l, err
	}
	if p, ok, err := num("HIPGO_STORE_PORT"); err != nil {
		return l, err
	} else if ok {
		port, havePort = p, true
	} else if havePort && getenv("TORCHELASTIC_USE_AGENT_STORE") == "True" {
		port++ // torchrun's own store listens on MASTER_PORT
	}
	if !havePort {
		return l, argErr(op, "MASTER_PORT is not set (or HIPGO_STORE_PORT): the port rank 0's store listens on")
	}
	if port == 0 || port > 65535 {
		return l, argErr(op, "store port %d is not a TCP port", port)
	}
	if host == "" {
		return l, argErr(op, "MASTER_ADDR is not set: the host of rank 0, whose store the ranks meet at")
	}
	l.Addr = net.JoinHostPort(host, strconv.Itoa(port))
	return l, nil
}

// Device is the device of gpu.Devices this rank drives. Its GPUs come
// first; the cpu agents follow them. A launcher that gives each rank a
// GPU of its own (CUDA_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES per rank)
// leaves one visible: every rank takes it. Otherwise the rank takes GPU
// LocalRank. Without GPUs the rank takes cpu agent LocalRank modulo the
// number of cpu agents: each process has cpu agents of its own, so ranks
// of different processes share none, and a launcher's smoke test on a
// machine without a GPU needs no HIPGO_CPU_AGENTS.
func (l Launch) Device() (*gpu.Device, error) {
	const op = "collective from env"
	all, err := gpu.Devices()
	if err != nil {
		return nil, errs.Wrap(op, err)
	}
	var gpus, cpus []*gpu.Device
	for _, d := range all {
		if d.Properties().IsCPU {
			cpus = append(cpus, d)
		} else {
			gpus = append(gpus, d)
		}
	}
	switch {
	case len(gpus) == 1:
		return gpus[0], nil
	case len(gpus) > l.LocalRank:
		return gpus[l.LocalRank], nil
	case len(gpus) > 0:
		return nil, argErr(op, "local rank %d, but %d GPUs are visible", l.LocalRank, len(gpus))
	case len(cpus) > 0:
		return cpus[l.LocalRank%len(cpus)], nil
	}
	return nil, gpu.Errorf(gpu.ErrNoDevice, op, "no GPU and no cpu agent (HIPGO_CPU_AGENTS=0?)")
}
