"""ringlab: ring AllReduce collectives and their analysis, from Python.

Collectives run on numpy arrays (any object with the buffer protocol) and torch CPU tensors in
their own memory, without copying:

    import numpy as np, ringlab

    def rank(comm):
        x = np.full(8, comm.rank + 1, dtype=np.float32)
        comm.allreduce(x)                # in place: x is now 1 + 2 + ... + p everywhere
        return x[0]

    ringlab.run_threads(4, rank)         # [10.0, 10.0, 10.0, 10.0]

A process started by `ringlab launch -p N python3 script.py` (shm, tcp) or by mpirun (mpi) joins
its job with `ringlab.connect(transport)`. The analysis functions (verify, predict, search_rings,
simulate, plan_buckets, read_record, compare_gpu, ...) take what the CLI's flags take, as strings
with their units ("5us", "12.5GB/s", "64M"), and return what its --json prints, as dicts and lists.
Failures raise ringlab.Error subclasses (ringlab.errors) carrying ringlab's message and code.
"""

import datetime
import os

from ringlab import _ringlab
from ringlab._ringlab import (AlgorithmSpec, Collective, DataType, ErrorCode, ReduceOp, Schedule,
                              Step, Transfer, __version__)
from ringlab.errors import (Error, InternalError, InvalidArgumentError, MismatchError,
                            PeerLostError, TimeoutError, TransportError, UnreliableError)

__all__ = [
    "__version__", "Communicator", "InprocWorld", "run_threads", "connect", "algorithms",
    "verify", "predict", "predict_sweep", "predict_vs_p", "search_rings", "show_rings",
    "simulate", "plan_buckets", "read_timeline", "write_timeline", "read_record", "parse_record",
    "write_record", "gpu_presets", "predict_gpu", "compare_gpu", "ErrorCode", "Error",
    "InvalidArgumentError", "MismatchError", "TimeoutError", "PeerLostError", "TransportError",
    "InternalError", "UnreliableError", "DataType", "ReduceOp", "Collective", "AlgorithmSpec",
    "Schedule", "Step", "Transfer", "algorithm_spec", "schedule", "register_algorithm",
    "unregister_algorithm",
]

DEFAULT_TIMEOUT = 60.0  # seconds: the deadline of each collective call, from its start


def _seconds(timeout):
    """A timeout as seconds (a number), a datetime.timedelta, or a string with its unit."""
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return timeout


def _options(timeout=DEFAULT_TIMEOUT, segment_size=None, profile="", tuned=""):
    return _ringlab.CollectiveOptions(_seconds(timeout), segment_size, profile, tuned)


def _algorithm(algo, ring_order=None, ring_stride=None, channels=1, ranks_per_node=0):
    return _ringlab.AlgorithmArgs(algo, ring_order, ring_stride, channels, ranks_per_node)


def _empty_like(buffer, count):
    """A new 1-D buffer of `count` elements of `buffer`'s dtype and kind (numpy or torch)."""
    if hasattr(buffer, "new_empty"):
        return buffer.new_empty((count,))
    import numpy
    return numpy.empty(count, dtype=numpy.asarray(buffer).dtype)


def _count(buffer):
    if hasattr(buffer, "numel"):
        return buffer.numel()
    view = memoryview(buffer)
    return view.nbytes // view.itemsize


class Communicator:
    """One rank's collectives. Buffers are numpy arrays (or other C-contiguous buffers) and torch
    CPU tensors; the result is written into the caller's memory, never copied out. Collectives
    follow NCCL's conventions: reduce_scatter gives rank r block r of the reduction, allgather
    puts rank r's block at r, alltoall sends block d to rank d. reduce and broadcast name their
    root with root= (the same on every rank). Every rank must make the same calls in the same
    order.

    Algorithm keywords, as the CLI's: algo (ringlab.algorithms(), or "auto"), ring_order (a
    permutation of 0..p-1), ring_stride, channels (multi_ring), ranks_per_node (hierarchical).
    A communicator is used by one thread at a time; after an exception it must not be used again.
    """

    def __init__(self, native):
        self._native = native

    @property
    def rank(self):
        return self._native.rank

    @property
    def size(self):
        return self._native.size

    @property
    def transport(self):
        """inproc, shm, tcp or mpi."""
        return self._native.transport

    def __repr__(self):
        return f"<ringlab.Communicator rank {self.rank} of {self.size} over {self.transport}>"

    def empty(self, shape, dtype="float32"):
        """A zeroed numpy array that this rank's peers on the host can read in place: over shm,
        large collectives on it go single-copy (the receiver reduces straight from the sender's
        array) instead of copying through shared slots; over other transports it is ordinary
        memory. torch.from_numpy(comm.empty(...)) gives a tensor on the same memory. The memory
        lives as long as the array, and the communicator's transport with it."""
        import numpy
        dtype = numpy.dtype(dtype)
        count = int(numpy.prod(shape, dtype=numpy.int64))
        raw = self._native.shared_buffer(count * dtype.itemsize)
        return raw.view(dtype).reshape(shape)

    def allreduce(self, send, out=None, *, op="sum", algo="ring", **algorithm):
        """out[i] = op over ranks of send[i]. In place (into send) unless out is given.
        op: sum, prod, min, max, avg. Returns the buffer holding the result."""
        out = send if out is None else out
        self._native.allreduce(send, out, op, _algorithm(algo, **algorithm))
        return out

    def reduce_scatter(self, send, out=None, *, op="sum", algo="ring", **algorithm):
        """out = block `rank` of the reduction of send (p equal blocks). out defaults to a new
        buffer; in place when out is send's block `rank`. Returns out."""
        if out is None:
            out = _empty_like(send, _count(send) // self.size)
        self._native.reduce_scatter(send, out, op, _algorithm(algo, **algorithm))
        return out

    def allgather(self, send, out=None, *, algo="ring", **algorithm):
        """out = every rank's send, in rank order. out defaults to a new buffer of p times
        send's elements; in place when send is out's block `rank`. Returns out."""
        if out is None:
            out = _empty_like(send, _count(send) * self.size)
        self._native.allgather(send, out, _algorithm(algo, **algorithm))
        return out

    def reduce(self, send, out=None, *, root=0, op="sum", algo="auto", **algorithm):
        """out[i] = op over ranks of send[i], at rank `root` only. In place (into send) unless
        out is given; the other ranks' out and send are left as they were.
        algo: auto runs reduce's own default (binomial_tree). Returns out (send when None)."""
        out = send if out is None else out
        self._native.reduce(send, out, op, root, _algorithm(algo, **algorithm))
        return out

    def broadcast(self, buffer, *, root=0, algo="auto", **algorithm):
        """buffer = rank `root`'s buffer, bit for bit, on every rank (in place). algo: auto runs
        broadcast's own default (binomial_tree). Returns buffer."""
        self._native.broadcast(buffer, root, _algorithm(algo, **algorithm))
        return buffer

    def alltoall(self, send, out=None, *, algo="auto", **algorithm):
        """Block d of send (p equal blocks) goes to rank d, and block s of out comes from rank s.
        out defaults to a new buffer of send's elements; in place when out is send. algo: auto
        runs alltoall's own default (pairwise_exchange). Returns out."""
        if out is None:
            out = _empty_like(send, _count(send))
        self._native.alltoall(send, out, _algorithm(algo, **algorithm))
        return out


class InprocWorld:
    """p ranks in this process over the in-process transport, for threads the caller runs
    (run_threads runs them for you). world.communicator(r) is rank r's communicator."""

    def __init__(self, ranks, **options):
        self._native = _ringlab.InprocWorld(ranks, _options(**options))
        self._communicators = [Communicator(self._native.communicator(r)) for r in range(ranks)]

    @property
    def size(self):
        return self._native.size

    def communicator(self, rank):
        if not 0 <= rank < self.size:
            self._native.communicator(rank)  # raises ringlab's message
        return self._communicators[rank]

    def abort(self, reason):
        """Makes every pending and future wait on every rank fail with PeerLostError."""
        self._native.abort(reason)

    def run(self, fn):
        """fn(communicator) on one thread per rank; returns the results in rank order. The first
        rank to raise stops the others, and its exception is raised here."""
        return self._native.run(lambda native: fn(self._communicators[native.rank]))


def run_threads(ranks, fn, **options):
    """Runs fn(communicator) for p = `ranks` ranks, each on its own thread of this process
    (inproc transport; the GIL is released during collectives). Returns the results in rank
    order; the first rank's exception is raised after every thread has stopped. Options as
    connect's."""
    return InprocWorld(ranks, **options).run(fn)


def connect(transport=None, **options):
    """This process as one rank of a job: shm or tcp under `ringlab launch -p N python3 ...`
    (or torchrun's variables: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), mpi under mpirun.
    Without a transport, the one the launcher's ranks take, as `ringlab bench` chooses: mpi under
    mpirun, tcp under torchrun; under `ringlab launch` name shm or tcp.

    Options: timeout (seconds, a timedelta, or "500ms": the longest wait for one message),
    segment_size (bytes or "256K"), and what algo="auto" chooses with: profile (a profile from
    `ringlab calibrate`) and tuned (a decision table from `ringlab tune`)."""
    return Communicator(_ringlab.connect(transport, _options(**options)))


def algorithms():
    """The algorithm names --algo takes (the registry's), besides "auto"."""
    return _ringlab.algorithm_names()


def _collective(collective):
    return collective if isinstance(collective, Collective) else _ringlab.parse_collective(
        collective)


def register_algorithm(name, build, *, collectives=("allreduce",), min_ranks=1, reads=(),
                       candidate=False):
    """Adds an algorithm whose schedules a Python function builds: build(collective, ranks, spec)
    returns a ringlab.Schedule(collective, ranks, blocks, steps, block_owner=[], ring_order=[])
    of Step(transfers, phase) and Transfer(src, dst, first_block, last_block, mode="copy" or
    "reduce"). spec is the AlgorithmSpec resolved for that call; reads names the fields of it the
    algorithm takes (ring_order, channels, ranks_per_node), the others being refused as they are
    for the built-ins.

    The library verifies every schedule it builds, so a wrong one raises InvalidArgumentError
    naming the first fault before any rank runs it. In this process the algorithm is then one
    like the built-ins: algo=name in a Communicator's calls of the collectives it builds, in
    schedule, verify, predict and simulate (priced by walking its schedule), and algo="auto" when
    candidate=True. Each process of a job registers it for itself (as it imports the same code);
    the torch backend's algorithms are the built-ins."""
    _ringlab.register_algorithm(name, build, [_collective(c) for c in collectives], min_ranks,
                                list(reads), candidate)


def unregister_algorithm(name):
    """Removes an algorithm register_algorithm added; built-ins stay."""
    _ringlab.unregister_algorithm(name)


def _model(profile=None, alpha=None, bw=None, gamma=None, concurrency=None, bw_counts="send",
           volume="send"):
    """The model's parameters as the CLI's --profile, --alpha, --bw, --gamma, --concurrency,
    --bw-counts and --volume take them: strings with units ("5us", "12.5GB/s", "0.05ns/B"),
    parsed by the library, whose errors name these keywords."""
    def text(value):
        return "" if value is None else str(value)
    return _ringlab.model_source(text(profile), text(alpha), text(bw), text(gamma),
                                 text(concurrency), bw_counts, volume)


def _topology(topo=None, topo_file=None, nccl_topo=None, nccl_nodes=1, placement="block",
              ranks=0):
    source = _ringlab.TopologySource()
    source.topo = topo or ""
    source.topo_file = topo_file or ""
    source.nccl_topo = nccl_topo or ""
    source.nccl_nodes = nccl_nodes
    source.placement = placement
    source.ranks = ranks
    return source


def _size(value):
    return str(value)


def algorithm_spec(ranks=8, algo="ring", **algorithm):
    """The algorithm resolved for p ranks, as a typed AlgorithmSpec (name, ring_order, channels,
    ranks_per_node, ...): the same keyword arguments as the collectives' and verify's."""
    return _ringlab.algorithm_spec(ranks, _algorithm(algo, **algorithm))


def schedule(ranks=8, *, collective="allreduce", algo="ring", **algorithm):
    """The verified Schedule the library runs, typed: algorithm, collective (a Collective),
    ranks, blocks, ring_order, block_owner and steps (each a phase and its transfers: src, dst,
    first_block, last_block, mode)."""
    return _ringlab.build_schedule(_collective(collective), ranks,
                                   algorithm_spec(ranks, algo, **algorithm))


def verify(ranks=8, *, collective="allreduce", algo="ring", offset=0, size="1M",
           dtype="float32", listing=False, **algorithm):
    """`ringlab verify`: builds the schedule, proves it correct and counts its bytes. Returns
    {"valid", "reason", "steps", "total_sent_bytes", "max_sent_bytes", "max_send_recv_bytes",
    "per_rank": [{"sent_bytes", "received_bytes"}], "text"}; text is the CLI's output (with the
    step listing when listing=True)."""
    return _ringlab.verify(ranks, collective, _algorithm(algo, **algorithm), offset,
                           _size(size), dtype, listing)


def predict(ranks=8, size="1G", *, dtype="float32", **model):
    """`ringlab model --json`: every candidate algorithm's predicted time at one size."""
    return _ringlab.predict(ranks, _size(size), dtype, _model(**model))


def predict_sweep(ranks=8, min_bytes="8", max_bytes="1G", *, dtype="float32", **model):
    """`ringlab model --sweep --json`: sizes min..max (x2) and the exact crossovers."""
    return _ringlab.predict_sweep(ranks, _size(min_bytes), _size(max_bytes), dtype,
                                  _model(**model))


def predict_vs_p(ranks=(2, 4, 8, 16, 32, 64, 128, 256, 512, 1024), size="1G", *,
                 dtype="float32", **model):
    """`ringlab model --vs-p --json`: the ring's terms at each p of `ranks`."""
    return _ringlab.predict_vs_p(list(ranks), _size(size), dtype, _model(**model))


def search_rings(*, size="64M", channels=0, order="", system=None, nodes=None, **topology):
    """`ringlab topo search --json`: ring orders minimising the predicted allreduce time on a
    topology (topo="nodes=2,ranks=4,...", topo_file, nccl_topo; placement; ranks), or on a GPU
    system (system="dgx-h100", nodes=2, as predict_gpu takes it), held against NCCL's rings."""
    return _ringlab.rings(_topology(**topology), _gpu_system(system, None, nodes), _size(size),
                          channels, order, True)


def show_rings(*, size="64M", channels=0, order="", system=None, nodes=None, **topology):
    """`ringlab topo show --json`: rank order's link loads against a better order (on a topology,
    or on a GPU system as search_rings takes it)."""
    return _ringlab.rings(_topology(**topology), _gpu_system(system, None, nodes), _size(size),
                          channels, order, False)


def simulate(*, algo=None, min_bytes="8", max_bytes="64M", step_factor=2, step_bytes=None,
             dtype="float32", op="sum", reduce_bw="", max_memory="4G", search=False,
             ring_order=None, ring_stride=None, channels=None, ranks_per_node=0, system=None,
             nodes=None, **topology):
    """`ringlab sim --json`: AllReduce simulated on a topology over a size sweep (times
    step_factor, or plus step_bytes as nccl-tests' -i). algo: ring unless given; on a GPU system
    (system="dgx-h100", nodes=2, as predict_gpu takes it) NCCL's rings, one per channel
    (channels: NCCL's count unless given), unless algo is given."""
    algorithm = None
    if algo is not None or ring_order is not None or ring_stride is not None or ranks_per_node:
        algorithm = _algorithm(algo or "ring", ring_order, ring_stride, 1, ranks_per_node)
    return _ringlab.simulate(_topology(**topology), _gpu_system(system, None, nodes), algorithm,
                             channels, _size(min_bytes), _size(max_bytes), step_factor,
                             "" if step_bytes is None else _size(step_bytes), dtype, op,
                             reduce_bw, max_memory, search)


def _list_text(values):
    if values is None:
        return ""
    return values if isinstance(values, str) else ",".join(str(v) for v in values)


def plan_buckets(timeline, ranks=8, *, measured=None, views=False, copy_bw="", ddp_caps=None,
                 evaluate=None, **model):
    """`ringlab plan --json`: the optimal gradient buckets for a backward timeline (a dict in
    ringlab-grad-timeline/1 form, or a timeline file's path) against DDP, Horovod and the rest.
    measured: measured AllReduce times to price with instead of the model, a run record (the
    dict read_record gives) or its path; ddp_caps: bucket_cap_mb values; evaluate: bucket start
    indices in ready order."""
    return _ringlab.plan_buckets(timeline, ranks, _model(**model), measured or None, views,
                                 copy_bw, _list_text(ddp_caps), _list_text(evaluate))


def read_timeline(path="", *, trace="", params=""):
    """A gradient timeline file (ringlab CSV/JSON, or a torch.profiler trace with its parameter
    list) as a ringlab-grad-timeline/1 dict."""
    return _ringlab.read_timeline(path, trace, params)


def write_timeline(timeline, path):
    """Writes a timeline dict (checked as a file would be) as ringlab JSON."""
    _ringlab.write_timeline(timeline, path)


def read_record(record):
    """A run record (`ringlab bench --json` output, or an nccl-tests log) from a path, or a
    record dict checked, as the dict `ringlab bench --json` writes."""
    return _ringlab.read_record(record)


def parse_record(text, name="record"):
    """A run record from its text (JSON or an nccl-tests log); `name` appears in errors."""
    return _ringlab.parse_record(text, name)


def write_record(record, path):
    """Writes a run record (a dict, or a path to read) as `ringlab bench --json` does."""
    _ringlab.write_record(record, path)


def _gpu_system(system=None, nccl_topo=None, nodes=None):
    """The GPU system as the CLI's --system (a preset, "dgx-h100,nodes=2", or keys such as
    "gpu=h100,gpus=8,nodes=2,nics=8,nic=400Gb/s"), --nccl-topo (a path) and --nodes take it."""
    source = _ringlab.GpuSystemSource()
    source.system = system or ""
    source.nccl_topo = os.fspath(nccl_topo) if nccl_topo is not None else ""
    source.nodes = nodes
    return source


def gpu_presets():
    """The GPU systems ringlab knows by name (`ringlab compare --system list`), one node each:
    [{"key", "title", "spec", "source"}]; system="<key>,nodes=N" scales one to N nodes."""
    return _ringlab.gpu_presets()


def predict_gpu(system=None, *, nccl_topo=None, nodes=None, min_bytes="8", max_bytes="1G"):
    """`ringlab model --system --json`: AllReduce on a GPU system as NCCL runs it, at sizes
    min_bytes, 4 min_bytes, ... max_bytes: {"system", "nccl_figures", "p", "model", "rows":
    [{size_bytes, algorithm, protocol, channels, predicted_us, busbw_GBps, regime, bound_us}]}
    and "text", the CLI's table. The system as compare_gpu takes it."""
    return _ringlab.predict_gpu(_gpu_system(system, nccl_topo, nodes), _size(min_bytes),
                                _size(max_bytes))


def compare_gpu(log, *, system=None, nccl_topo=None, nodes=None, ranks=None):
    """`ringlab compare LOG --system ... --json`: an nccl-tests log (a path; text or -J JSON)
    judged against the GPU system it ran on. Returns a list with one verdict per run in the file
    (most logs hold one: `[verdict] = ringlab.compare_gpu(...)`; `-d all` and pasted reruns hold
    several), each the CLI's JSON: {"source", "label", "device", "p", "system", "nccl_figures",
    "rows": [{size_bytes, measured_us, predicted_us, algorithm, protocol, channels, regime, ...}],
    "bands", "findings", "flagged", "notes"} and "text", the CLI's table.

    system: a preset (gpu_presets()), a preset with overrides ("dgx-h100,nics=4") or keys
    ("gpu=h100,gpus=8,nodes=2,nics=8,nic=400Gb/s"); nccl_topo: NCCL's topology XML of one node
    (with system holding keys only); nodes: scales the system to N nodes; ranks: p, for a log
    without its rank lines. Without a system a GPU log raises InvalidArgumentError (a ValueError)
    saying what ran and how to describe the hardware."""
    return _ringlab.compare_gpu(os.fspath(log), _gpu_system(system, nccl_topo, nodes), ranks)
