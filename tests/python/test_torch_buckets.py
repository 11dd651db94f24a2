"""ringlab.torch.buckets: a bucket plan applied to training ends where DDP ends, its buckets start in
the planned order as soon as their last gradient is in, and a plan that does not cover the model is
refused. Ranks are processes forked with torch.multiprocessing, on gloo (and on ringlab's backend
where it is built, whose buckets must lie in the group's shared memory).

Why the comparisons are exact. Both runs compute the same local gradients (same model, same
batches, same operations); they differ only in how the AllReduce sums them. Each rank's gradient
is multiplied by 1/p while copied into a bucket (DDP does the same), then the p terms are added in
an order that depends on the bucket's size (gloo's ring chunks the buffer). At p = 2 the sum has
two terms, and a + b = b + a in IEEE arithmetic: the runs agree bitwise on any input. At p = 4 with
integer-valued parameters and inputs (a model whose gradients stay integers, `_Heads`), every
gradient is an integer, g / 4 and the sums are exact (the test checks the values stay below 2^24),
and lr = p keeps the parameters integers: bitwise again. At p = 4 on random inputs the order
matters; the bound is derived in `_float_tolerance`.
"""

import gc
import importlib.util
import os
import sys
import tempfile

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from ringlab.torch import timeline as rtimeline
from ringlab.torch.buckets import apply_plan, check_plan, plan_buckets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shared_memory_maps import in_own_shared_memory  # noqa: E402

WIDTHS = [12, 10, 8, 6]  # 3 Linear layers, 6 parameter tensors
STEPS = 4
U = 2.0 ** -24  # float32's unit roundoff
LR = 1e-5  # random inputs: small steps, for the bound in _float_tolerance


class _Heads(torch.nn.Module):
    """Linear heads on slices of the input, summed. A head's gradient is c times its slice of the
    input whatever the parameters are, so integer inputs give small integer gradients at every
    step (in a deeper network they would grow past 2^24 within a few steps of lr = p)."""

    def __init__(self, heads=3):
        super().__init__()
        self.width = WIDTHS[0] // heads
        self.heads = torch.nn.ModuleList(torch.nn.Linear(self.width, WIDTHS[-1]) for _ in range(heads))

    def forward(self, x):
        return sum(h(x[:, k * self.width:(k + 1) * self.width]) for k, h in enumerate(self.heads))


def _model(integer):
    """Integer-valued: the heads with integer parameters; otherwise an MLP of 3 Linear layers."""
    torch.manual_seed(0)
    if integer:
        model = _Heads()
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(torch.randint(-2, 3, p.shape))
        return model
    layers = []
    for a, b in zip(WIDTHS, WIDTHS[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers[:-1])


def _batches(rank, integer):
    gen = torch.Generator().manual_seed(100 + rank)
    if integer:
        return [torch.randint(-2, 3, (4, WIDTHS[0]), generator=gen).float() for _ in range(STEPS)]
    return [torch.randn(4, WIDTHS[0], generator=gen) for _ in range(STEPS)]


def _loss(model, x):
    # sum(out * c) with integer c: integer-valued gradients where parameters and inputs are.
    return (model(x) * torch.arange(1, WIDTHS[-1] + 1).float()).sum()


def _layer_buckets(model, reverse):
    """One bucket per Linear layer (weight and bias), last layer first when reverse."""
    names = [n for n, _ in model.named_parameters()]
    layers = [names[i:i + 2] for i in range(0, len(names), 2)]
    return layers[::-1] if reverse else layers


def _train(model, batches, lr):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for x in batches:
        opt.zero_grad()
        _loss(model, x).backward()
        opt.step()


def _final(model):
    return {n: p.detach().clone() for n, p in model.named_parameters()}


def _rank(rank, world, init, backend, out_dir):
    if backend == "ringlab":
        import ringlab.torch  # noqa: F401  registers the backend
    dist.init_process_group(backend, init_method=init, rank=rank, world_size=world)
    torch.set_num_threads(1)
    out = {}
    for integer in (True, False):
        lr = float(world) if integer else LR
        batches = _batches(rank, integer)
        ddp_model = _model(integer)
        _train(torch.nn.parallel.DistributedDataParallel(ddp_model), batches, lr)
        plan_model = _model(integer)
        applied = apply_plan(plan_model, _layer_buckets(plan_model, reverse=True))
        if not integer:  # the plan must live on with the model alone
            applied = None
            gc.collect()
        _train(plan_model, batches, lr)
        out[integer] = {"ddp": _final(ddp_model), "plan": _final(plan_model),
                        "launches": applied.launches if applied else None}
        local = _model(integer)  # the local gradients' size, for the tolerance
        out[integer]["max_local_grad"] = _max_local_grad(local, batches)
    # Buckets listed first layer first: the first bucket's last gradient is the backward's last,
    # so nothing may start before it, and then all start in the listed order.
    model = _model(False)
    applied = apply_plan(model, _layer_buckets(model, reverse=False))
    _train(model, _batches(rank, False)[:1], 1e-3)
    out["launches_first_layer_first"] = applied.launches
    out["backend"] = backend
    out["buckets_in_shared_memory"] = [in_own_shared_memory(b.buffer) for b in applied._buckets]
    torch.save(out, os.path.join(out_dir, f"rank{rank}.pt"))
    dist.destroy_process_group()


def _max_local_grad(model, batches):
    g = 0.0
    for x in batches:
        model.zero_grad()
        _loss(model, x).backward()
        g = max(g, max(p.grad.abs().max().item() for p in model.parameters()))
    return g


def _backend_available(backend):
    if backend == "gloo":
        return True
    if importlib.util.find_spec("ringlab._torch_backend") is None:
        return False  # not built here
    import ringlab.torch  # noqa: F401  registers the backend
    return True


@pytest.fixture(scope="module", params=[("gloo", 2), ("gloo", 4), ("ringlab", 2), ("ringlab", 4)],
                ids=lambda v: f"{v[0]}-p{v[1]}")
def runs(request):
    backend, world = request.param
    if not _backend_available(backend):
        pytest.skip(f"the {backend} torch.distributed backend is not built here")
    with tempfile.TemporaryDirectory() as tmp:
        # fork: the ranks start with torch already imported (seconds each otherwise, on a busy machine).
        mp.start_processes(_rank, args=(world, "file://" + os.path.join(tmp, "rendezvous"), backend, tmp),
                           nprocs=world, start_method="fork")
        return world, [torch.load(os.path.join(tmp, f"rank{r}.pt")) for r in range(world)]


def _assert_bitwise(a, b):
    for name in a:
        assert torch.equal(a[name], b[name]), (name, (a[name] - b[name]).abs().max().item())


def test_integer_inputs_end_bitwise_where_ddp_ends(runs):
    world, ranks = runs
    for out in ranks:
        # The premise: every gradient and parameter an integer below 2^24.
        assert world * out[True]["max_local_grad"] < 2 ** 24
        for p in out[True]["ddp"].values():
            assert torch.equal(p, p.round()) and p.abs().max().item() < 2 ** 24
        _assert_bitwise(out[True]["ddp"], out[True]["plan"])
    _assert_bitwise(ranks[0][True]["plan"], ranks[-1][True]["plan"])


def _float_tolerance(world, out):
    """Per step, each reduced element is a sum of p terms g_i / p; two orders of it differ by at
    most 2 (p - 1) u sum|g_i / p| <= 2 (p - 1) u G, G the largest local gradient. The update lr g
    then differs by lr times that, and the rounding of w - lr g by at most one ulp of the largest
    parameter, 2 u W, beyond it. Over k steps the first-order sum is k (lr 2 (p - 1) u G + 2 u W);
    the parameters move by at most k lr G (checked below to be small against W), so the gradients'
    own drift is second order: a factor 2 covers it."""
    lr, g = LR, out["max_local_grad"]
    w = max(p.abs().max().item() for p in out["ddp"].values())
    assert STEPS * lr * g < 0.01 * w, "the bound's premise: parameters move little"
    return 2 * STEPS * (lr * 2 * (world - 1) * U * g + 2 * U * w)


def test_random_inputs_end_where_ddp_ends(runs):
    world, ranks = runs
    for out in ranks:
        if world == 2:
            _assert_bitwise(out[False]["ddp"], out[False]["plan"])
            continue
        tol = _float_tolerance(world, out[False])
        for name, p in out[False]["ddp"].items():
            diff = (p - out[False]["plan"][name]).abs().max().item()
            assert diff <= tol, (name, diff, tol)


def test_buckets_start_when_their_last_gradient_is_in_and_in_planned_order(runs):
    world, ranks = runs
    layers = len(WIDTHS) - 1
    for out in ranks:
        # Last layer first (the backward's order): bucket k starts as its layer's two gradients
        # arrive, before the backward reaches the layers below (the heads' backward too reaches
        # the last head first).
        assert out[True]["launches"] == [(k, 2 * (k + 1)) for k in range(layers)]
        assert out["launches_first_layer_first"] == [(k, 2 * layers) for k in range(layers)]


def test_buckets_are_in_shared_memory_on_ringlab_only(runs):
    _, ranks = runs
    for out in ranks:  # one bucket per layer, 3 layers
        assert out["buckets_in_shared_memory"] == [out["backend"] == "ringlab"] * 3


def test_a_plan_must_cover_every_parameter_once():
    model = _model(False)
    names = [n for n, _ in model.named_parameters()]
    with pytest.raises(ValueError, match=r"bucket plan: 1 parameter\(s\) in no bucket: 4.bias; a plan must cover"):
        apply_plan(model, [names[:-1]])
    with pytest.raises(ValueError, match="bucket plan: parameter '0.weight' is in more than one bucket"):
        apply_plan(model, [names, names[:1]])
    with pytest.raises(ValueError, match="bucket plan: bucket 1 names '5.weight', which is not a parameter"):
        apply_plan(model, [names, ["5.weight"]])
    with pytest.raises(ValueError, match="bucket plan: bucket 0 is empty"):
        apply_plan(model, [[], names])
    model.double()
    model[0].bias.data = model[0].bias.data.float()
    with pytest.raises(ValueError, match=r"bucket plan: bucket 0 mixes datatypes"):
        check_plan(model.named_parameters(), [names])


def test_plan_buckets_follows_the_planner():
    """The recorded timeline planned with a measured AllReduce: the buckets are the planner's
    optimal ones (its JSON), as parameter names, covering the model in ready order."""
    model = _model(False)
    timeline = rtimeline.record(model, lambda: _batches(0, False)[0], _loss, iterations=2, warmup=1)
    # A startup of 0.1 s, far above this backward: one bucket is the optimum.
    measured = {"run": {"p": 2, "transport": "test"},
                "rows": [{"size_bytes": n, "in_place": {"time_us": 1e5 + n / 1e3}} for n in (4, 1 << 20)]}
    buckets, comparison = plan_buckets(timeline, 2, measured=measured)
    order = [t["name"] for t in timeline["tensors"]]
    assert [n for b in buckets for n in b] == order
    optimal = next(p for p in comparison["plans"] if p["name"] == "optimal")
    assert len(buckets) == optimal["bucket_count"] == 1
    assert check_plan(model.named_parameters(), buckets)
    # 1 us of startup and 1 us per byte, gradients 0.1 s apart, the backward ending with the last:
    # the last gradient goes alone (any company would only delay the last AllReduce), and the
    # others, done long before it in any bucketing, tie: the fewest buckets, one, wins the tie.
    ready = [(i + 1) * 1e5 for i in range(len(order))]
    spaced = dict(timeline, backward_end_us=ready[-1],
                  tensors=[dict(t, ready_us=r) for t, r in zip(timeline["tensors"], ready)])
    measured["rows"] = [{"size_bytes": n, "in_place": {"time_us": 1.0 + n}} for n in (4, 1 << 20)]
    buckets, comparison = plan_buckets(spaced, 2, measured=measured)
    assert buckets == [order[:-1], [order[-1]]] and not comparison["communication_hidden"]
    # The backward a second longer hides every AllReduce: one bucket is as good as any.
    buckets, comparison = plan_buckets(dict(spaced, backward_end_us=ready[-1] + 1e6), 2,
                                       measured=measured)
    assert buckets == [order] and comparison["communication_hidden"]
