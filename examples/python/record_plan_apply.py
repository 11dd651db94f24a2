#!/usr/bin/python3
"""Record, plan and train in one program: the planner's optimal gradient buckets applied to DDP-style
data-parallel training, on any torch.distributed backend.

    PYTHONPATH=build/python RINGLAB_BINARY=build/ringlab \
        torchrun --standalone --nproc_per_node 2 examples/python/record_plan_apply.py [--backend gloo|ringlab]

1. record: every rank times its own backward pass (when each parameter's gradient is ready), the
   forward and the optimiser step (ringlab.torch.timeline.record);
2. measure: the group's AllReduce at every power of two up to the model's gradient bytes
   (ringlab.torch.timeline.measure_allreduce);
3. plan: rank 0 plans the buckets whose last AllReduce finishes first (ringlab.torch.buckets.
   plan_buckets, `ringlab plan`) and sends them to every rank: all ranks must reduce the same buckets;
4. train: the plan applied (ringlab.torch.buckets.apply_plan): each bucket's AllReduce starts when its
   last gradient is ready, and loss.backward() returns with the gradients averaged, as under DDP.
"""

import argparse
import statistics
import time

import torch
import torch.distributed as dist
from example_checks import same_parameters_on_all_ranks
from ringlab.torch.buckets import apply_plan, plan_buckets
from ringlab.torch.timeline import measure_allreduce, record


def build_model(width):
    """An MLP whose layers differ in size, so that bucketing has choices to make."""
    torch.manual_seed(0)
    widths = [64, width, width // 4, width * 2, width // 8, 10]
    layers = []
    for a, b in zip(widths, widths[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers[:-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", default="gloo", help="torch.distributed backend (ringlab: import ringlab.torch first)")
    ap.add_argument("--width", type=int, default=512, help="the MLP's width")
    ap.add_argument("--steps", type=int, default=20, help="training steps with the plan applied")
    ap.add_argument("--record-iterations", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=10, help="rounds of the AllReduce measurement")
    a = ap.parse_args()
    if a.backend == "ringlab":
        import ringlab.torch  # noqa: F401  registers the backend where it is built
    dist.init_process_group(a.backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)
    model = build_model(a.width)
    gen = torch.Generator().manual_seed(rank)  # each rank its own shard of the data
    data = [(torch.randn(32, 64, generator=gen), torch.randn(32, 10, generator=gen)) for _ in range(4)]
    step = [0]

    def make_batch():
        step[0] += 1
        return data[step[0] % len(data)]

    def loss_fn(m, batch):
        return torch.nn.functional.mse_loss(m(batch[0]), batch[1])

    timeline = record(model, make_batch, loss_fn, iterations=a.record_iterations, warmup=1)
    grad_bytes = sum(t["count"] for t in timeline["tensors"]) * 4
    measured = measure_allreduce(max_bytes=1 << (grad_bytes - 1).bit_length(), rounds=a.rounds)
    plan = [None]
    if rank == 0:
        buckets, comparison = plan_buckets(timeline, world, measured=measured)
        plan[0] = buckets
        show_plan(timeline, comparison, a.backend, world)
    dist.broadcast_object_list(plan, src=0)
    applied = apply_plan(model, plan[0])  # also makes every rank's parameters rank 0's

    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    times, losses = [], []
    for _ in range(a.steps):
        batch = make_batch()
        t0 = time.perf_counter()
        optimizer.zero_grad()
        loss = loss_fn(model, batch)
        loss.backward()  # returns with the planned buckets reduced and the gradients averaged
        optimizer.step()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
    same = same_parameters_on_all_ranks(model)
    dist.destroy_process_group()
    if rank == 0:
        order = " ".join(str(b) for b, _ in applied.launches)
        print(f"trained {a.steps} steps: mean loss over the 4 batches {statistics.fmean(losses[:4]):.4f} -> "
              f"{statistics.fmean(losses[-4:]):.4f}, iteration median {statistics.median(times) * 1e3:.2f} ms; "
              f"buckets started in order {order}")
        print(f"parameters identical on all {world} ranks: {'yes' if same else 'NO'}")
    if not same:
        raise SystemExit(1)


def show_plan(timeline, comparison, backend, world):
    tensors = timeline["tensors"]
    print(f"recorded: {len(tensors)} gradients, {sum(t['count'] for t in tensors) * 4 / 2**20:.2f} MiB, backward "
          f"{timeline['backward_end_us'] / 1e3:.2f} ms; AllReduce measured on {backend}, p = {world}")
    optimal = next(p for p in comparison["plans"] if p["name"] == "optimal")["buckets"]
    for p in comparison["plans"]:
        if p["name"] in ("optimal", "ddp-default", "ddp-best-cap", "single"):
            print(f"  {p['name']:<14} {p['bucket_count']:>3} buckets  predicted iteration "
                  f"{p['iteration_us'] / 1e3:8.2f} ms  ({p['note']})")
    print(f"applying the optimal plan, bucket sizes (gradients): {' '.join(str(len(b['tensors'])) for b in optimal)}",
          flush=True)


if __name__ == "__main__":
    main()
