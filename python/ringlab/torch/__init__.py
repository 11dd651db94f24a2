"""ringlab inside PyTorch.

``import ringlab.torch`` registers the ``"ringlab"`` backend with torch.distributed, so that a
script started by torchrun can run its collectives (and DDP's gradient AllReduce) on ringlab::

    import torch.distributed as dist
    import ringlab.torch  # noqa: F401  (registers the backend)
    dist.init_process_group("ringlab")

See :mod:`ringlab.torch.backend` for the transport and algorithm options.
"""
from ringlab.torch.backend import create_process_group, new_group, register

register()

__all__ = ["create_process_group", "new_group", "register"]
