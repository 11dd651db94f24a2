"""The "ringlab" torch.distributed backend: ringlab's Communicator as a c10d process group.

torch.distributed calls :func:`create_process_group` with the group's store (under torchrun the
job's TCPStore, prefixed per group), rank, size and timeout. ringlab's transports meet through
that store, so a torchrun job needs no second port or token. The group's options come from the
environment, the same on every rank:

``RINGLAB_TORCH_TRANSPORT``
    ``auto`` (default): ``shm`` when every rank of the group runs on one host, else ``tcp``;
    or ``shm``, or ``tcp``.
``RINGLAB_TORCH_ALGORITHM``
    the AllReduce algorithm: ``auto`` (default: chosen per size by ringlab's model), or one of
    ``ringlab.algorithms()`` that needs no parameter (``ring``, ``recursive_doubling``,
    ``rabenseifner``, ``binomial_tree``, ``multi_ring``). The other collectives run it where it
    builds them (binomial_tree: reduce and broadcast; ring: all_gather and reduce_scatter) and
    their own default elsewhere. A name that runs no AllReduce fails in init_process_group.
``RINGLAB_BIND``
    tcp: the address the data ports listen on (default 127.0.0.1 when the group is on one host,
    every interface otherwise).

``init_process_group(timeout=...)`` bounds the set-up and every wait of every collective; a
failure (a peer that died, a timeout) is raised by ``Work.wait`` on every rank that survives,
and the group is then unusable.

Every operation gloo offers on CPU is there, with gloo's semantics: the collectives, reduce,
gather, scatter, all_to_all, send and recv (tags, any source), monitored_barrier. torch 1.13's
``torch.distributed.monitored_barrier`` refuses every backend but gloo before it asks the group,
so :func:`register` lets it ask ringlab groups too (other groups take torch's own path).
"""
import operator
import os

import torch
import torch.distributed as dist

from ringlab import _torch_backend
from ringlab.errors import InvalidArgumentError

ProcessGroupRinglab = _torch_backend.ProcessGroupRinglab

TRANSPORTS = tuple(_torch_backend.transports())  # "auto", then the table's launched transports

_transport_for_next_group = None  # set by new_group() while torch creates the group


def _checked_transport(value, what):
    if value not in TRANSPORTS:
        raise ValueError(f"{what}={value}: valid are {', '.join(TRANSPORTS)}")
    return value


def create_process_group(store, rank, size, timeout):
    """The backend's creator, as torch.distributed.Backend.register_backend calls it."""
    transport = _transport_for_next_group or _checked_transport(
        os.environ.get("RINGLAB_TORCH_TRANSPORT", "auto"), "RINGLAB_TORCH_TRANSPORT")
    algorithm = os.environ.get("RINGLAB_TORCH_ALGORITHM", "auto")
    try:
        _torch_backend.check_algorithm(algorithm, size)
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"RINGLAB_TORCH_ALGORITHM={algorithm}: {error}") from None
    return _torch_backend.create(store, rank, size, timeout, transport=transport,
                                 algorithm=algorithm, bind=os.environ.get("RINGLAB_BIND", ""))


def register():
    """Registers "ringlab" with torch.distributed (once; later calls do nothing)."""
    if not hasattr(dist.Backend, "RINGLAB"):
        dist.Backend.register_backend("ringlab", create_process_group)
        dist.monitored_barrier = dist.distributed_c10d.monitored_barrier = monitored_barrier


_torch_monitored_barrier = dist.monitored_barrier


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """``torch.distributed.monitored_barrier``, which ringlab groups answer as gloo's do: rank 0
    names the first rank that did not arrive within `timeout` (all of them with
    `wait_all_ranks`), and the others raise that rank 0 did not release them."""
    c10d = dist.distributed_c10d
    pg = c10d._get_default_group() if group is None else group
    if c10d._rank_not_in_group(group) or not isinstance(pg, ProcessGroupRinglab):
        return _torch_monitored_barrier(group, timeout, wait_all_ranks)
    return pg.monitored_barrier(c10d.default_pg_timeout if timeout is None else timeout,
                                wait_all_ranks=wait_all_ranks)


def new_group(transport="auto", ranks=None, **kwargs):
    """``torch.distributed.new_group(ranks, backend="ringlab", ...)`` on `transport` (auto, shm or
    tcp), whatever RINGLAB_TORCH_TRANSPORT says: for comparing transports in one job."""
    global _transport_for_next_group
    _transport_for_next_group = _checked_transport(transport, "transport")
    try:
        return dist.new_group(ranks=ranks, backend="ringlab", **kwargs)
    finally:
        _transport_for_next_group = None


def ringlab_group(group, what):
    """`group`, or the default group when None, checked to be a ringlab process group: a TypeError
    that names `what` (the function refusing it) otherwise."""
    if group is None:
        group = dist.distributed_c10d._get_default_group()
    if not isinstance(group, ProcessGroupRinglab):
        raise TypeError(f"ringlab: {what}: group is a {type(group).__name__}, not a ringlab "
                        "process group; pass one made with backend=\"ringlab\", or None for the "
                        "default group")
    return group


def empty(size, dtype=torch.float32, group=None):
    """An uninitialised CPU tensor of `size` (a number of elements or a shape) whose storage is
    memory the ringlab `group`'s peers read in place (the default group when None): over shm, an
    all_reduce of it goes single copy for messages from ``group.single_copy_bytes`` up (128 KiB
    by default), where an ordinary tensor is copied twice. On tcp it is an ordinary tensor. The
    memory stays valid while the tensor lives, after the group is destroyed too; when the tensor
    goes it returns to the group's pool for the next one, not to the system. `dtype`: one ringlab
    reduces (int8, uint8, int32, int64, float16, bfloat16, float32, float64)."""
    group = ringlab_group(group, "empty")
    try:
        shape = [operator.index(n) for n in (size if isinstance(size, (tuple, list)) else [size])]
    except TypeError:
        raise TypeError(f"ringlab: empty: size {size!r} is neither a number of elements nor a "
                        "shape (a tuple of them)") from None
    return _torch_backend.empty_shared(group, shape, dtype)
