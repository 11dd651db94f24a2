"""What the Python examples check before they report success."""

import torch
import torch.distributed as dist


def same_parameters_on_all_ranks(model):
    """Whether every rank of the default group holds the same parameters (a sum of all of them,
    compared bitwise: data-parallel training keeps the replicas identical to the last bit)."""
    digest = torch.cat([p.detach().reshape(-1) for p in model.parameters()]).sum().reshape(1)
    digests = [torch.zeros(1) for _ in range(dist.get_world_size())]
    dist.all_gather(digests, digest)
    return all(torch.equal(d, digests[0]) for d in digests)
