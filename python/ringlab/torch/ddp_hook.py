"""DDP's own gradient buckets reduced single copy over shm: a communication hook.

    ddp = DistributedDataParallel(model, process_group=group,       # group: a ringlab group
                                  gradient_as_bucket_view=True)     # the gradients are the bucket
    ddp.register_comm_hook(group, ringlab.torch.single_copy_hook)   # None: the default group

With ``gradient_as_bucket_view=True`` the AllReduce is the only pass over a bucket (it scales as it
sums, below); with DDP's default the gradients are also copied into the bucket and back, and the
hook saves less (docs/torch.md has the measurements).

DDP's reducer allocates each bucket's flat tensor itself, in ordinary memory, which over shm is
copied twice per message (into the transport's slots, then out of them). Before a bucket's first
AllReduce the hook moves that tensor's storage into the group's shared memory, in place
(`_torch_backend.move_to_shared_memory`): the bytes are copied once, the storage is pointed at
the copy, and the old memory is freed. DDP's bucket views (and, with
``gradient_as_bucket_view=True``, the gradients) are views of that same storage, so from then on
DDP copies gradients straight into shared memory and every AllReduce of the bucket goes single
copy, without a second buffer. DDP builds its buckets anew once, after the first iteration (in
the order the gradients became ready); each new bucket is moved the first time it reaches the
hook, and later calls find it there.

Averaging is DDP's own: without a hook the reducer multiplies each gradient by 1/world_size as
it copies it into the bucket (``Reducer::mark_variable_ready_dense``) and then sums; with a hook
it copies the gradient unscaled. The hook asks for a premultiplied sum with the same factor
(``PREMUL_SUM``, as NCCL offers it): each rank's bucket is multiplied by 1/world_size, rounded to
its dtype as the reducer's product is, as it enters the sum, inside the AllReduce's first
combining pass rather than in a pass of its own. The result is DDP's without a hook to the last
bit at any world size. (torch's ``allreduce_hook`` divides by world_size instead, the same bits
where world_size is a power of two.) A sparse gradient's bucket (``nn.Embedding(sparse=True)``)
is the gradient itself: the hook divides it by world_size, as the reducer does, and reduces it
where it is.
"""
import torch.distributed as dist

from ringlab import _torch_backend
from ringlab.torch.backend import ringlab_group


def single_copy_hook(group, bucket: dist.GradBucket):
    """A DDP communication hook (``register_comm_hook(group, single_copy_hook)``): the bucket's
    average over the ringlab `group` (the default group when None), reduced in place in the
    group's shared memory. On tcp, where there is none, it reduces the bucket where DDP put it.
    Raises TypeError when `group` is not a ringlab group."""
    group = ringlab_group(group, "single_copy_hook")
    tensor = bucket.buffer()
    if tensor.is_sparse:  # a sparse gradient's bucket is the gradient, which the reducer divides
        tensor.div_(group.size())
        return group.allreduce([tensor]).get_future().then(_only_tensor)
    _torch_backend.move_to_shared_memory(group, tensor)
    options = dist.AllreduceOptions()
    # The reducer's scaling, double(1) / world size, applied as each rank's bucket enters the sum.
    options.reduceOp = dist._make_nccl_premul_sum(1.0 / group.size())
    return group.allreduce([tensor], options).get_future().then(_only_tensor)


def _only_tensor(future):
    """The bucket from the AllReduce's result (a list of one tensor), as DDP takes it back."""
    return future.value()[0]
