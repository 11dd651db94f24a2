"""ringlab inside PyTorch.

``import ringlab.torch`` registers the ``"ringlab"`` backend with torch.distributed, so that a
script started by torchrun can run its collectives (and DDP's gradient AllReduce) on ringlab::

    import torch.distributed as dist
    import ringlab.torch  # noqa: F401  (registers the backend)
    dist.init_process_group("ringlab")

See :mod:`ringlab.torch.backend` for the transport and algorithm options, and for
:func:`empty`: tensors in the group's shared memory, whose AllReduce over shm goes single copy;
:func:`single_copy_hook` (:mod:`ringlab.torch.ddp_hook`) puts DDP's own buckets there. Bucket
plans applied to a training loop are in :mod:`ringlab.torch.buckets`, gradient timelines recorded
in the same run in
:mod:`ringlab.torch.timeline`; those two work on any backend, so they stay importable where the
backend's extension (ringlab._torch_backend, built with libtorch-dev) is not built.
"""
try:
    from ringlab.torch.backend import create_process_group, empty, new_group, register
    from ringlab.torch.ddp_hook import single_copy_hook
except ImportError as missing:  # the extension is not built: the backend alone is unavailable
    BACKEND_MISSING = missing
else:
    BACKEND_MISSING = None
    register()
    __all__ = ["create_process_group", "empty", "new_group", "register", "single_copy_hook"]
