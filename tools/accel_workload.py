"""The accelerator-like workload of the bucket checks: a stack of Linear layers of varied widths
(26 layers, 52 parameter tensors, 31.4 MiB of float32 gradients) whose backward sleeps.

Each layer's backward is an autograd Function that sleeps for its share of `backward_ms`
(proportional to its size, at least 0.2 ms, a kernel launch) and returns precomputed gradients:
the backward takes time without using the CPU, as an accelerator's kernels would, so an AllReduce
on the CPU can truly overlap it. `build_model("cpu", ...)` is the same stack of real Linear layers
and ReLUs, whose backward competes with the communication for the cores.

Used by tools/ddp_bucket_check.py (the planner against DDP's caps) and
tools/bucket_apply_check.py (the planner's buckets applied, against DDP).
"""

import time

import torch

# Output widths of the 26 layers (52 parameter tensors), varied on purpose: large and tiny
# tensors side by side, as in real models.
WIDTHS = [512, 1024, 256, 1536, 128, 1024, 64, 768, 512, 2048, 256, 32, 1024, 512, 1280, 96, 640, 1024, 384,
          1792, 48, 512, 896, 256, 1024, 10]
INPUT = 784


class SleepLinearFn(torch.autograd.Function):
    """y = a fixed tensor; backward sleeps (no CPU) and returns precomputed gradients."""

    @staticmethod
    def forward(ctx, x, weight, bias, layer):
        ctx.layer = layer
        return layer.out_template.expand(x.shape[0], -1).clone()

    @staticmethod
    def backward(ctx, grad_out):
        layer = ctx.layer
        time.sleep(layer.backward_s)
        return layer.grad_x.expand(grad_out.shape[0], -1), layer.grad_w, layer.grad_b, None


class SleepLinear(torch.nn.Module):
    def __init__(self, fan_in, fan_out, backward_s):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(fan_out, fan_in))
        self.bias = torch.nn.Parameter(torch.zeros(fan_out))
        self.backward_s = backward_s
        self.out_template = torch.zeros(1, fan_out)
        self.grad_x = torch.full((1, fan_in), 1e-3)
        self.grad_w = torch.full((fan_out, fan_in), 1e-3)
        self.grad_b = torch.full((fan_out,), 1e-3)

    def forward(self, x):
        return SleepLinearFn.apply(x, self.weight, self.bias, self)


def build_model(workload, backward_ms):
    """`accel`, `cpu` (above), or `two-phase`: the backward first releases a burst of gradients
    from 17 layers that compute little (0.2 ms each, like a classifier head), then 8 gradients
    spaced by long compute (backward_ms / 20 each, like convolutions), all of 1 MiB. One bucket
    cap cannot serve both: the burst wants few large buckets (each AllReduce's startup is paid
    while communication is behind), the spaced gradients small ones (the last bucket is exposed)."""
    torch.manual_seed(0)
    if workload == "two-phase":
        slow, fast = backward_ms * 1e-3 / 20, 2e-4
        layers = [SleepLinear(INPUT, 512, slow)] + [SleepLinear(512, 512, slow) for _ in range(7)]
        layers += [SleepLinear(512, 512, fast) for _ in range(16)] + [SleepLinear(512, 10, fast)]
        return torch.nn.Sequential(*layers)
    layers, fan_in = [], INPUT
    sizes = []
    for w in WIDTHS:
        sizes.append(fan_in * w)
        fan_in = w
    total = sum(sizes)
    fan_in = INPUT
    for w, s in zip(WIDTHS, sizes):
        if workload == "accel":
            # Backward time proportional to the layer's size, with a floor (kernel launch).
            layers.append(SleepLinear(fan_in, w, max(2e-4, backward_ms * 1e-3 * s / total)))
        else:
            layers.append(torch.nn.Linear(fan_in, w))
            layers.append(torch.nn.ReLU())
        fan_in = w
    return torch.nn.Sequential(*layers)


def loss_fn(model, x):
    return model(x).float().pow(2).mean()


def make_batch_fn(batch):
    gen = torch.Generator().manual_seed(1)

    def make_batch():
        return torch.randn(batch, INPUT, generator=gen)
    return make_batch
