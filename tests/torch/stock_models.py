"""Stock PyTorch models whose gradients do not become ready in reverse parameter order, for the
trace reader's and the DDP row's ground-truth tests (tests/plan_trace_truth_test.py) and the
traces kept in tests/data/torch_traces (tests/torch/make_torch_traces.py)."""
import contextlib

import torch
from torch import nn

from ringlab.torch.timeline import mark_gradients


class TokenTransformer(nn.Module):
    """Token ids -> embedding -> stock nn.TransformerEncoder (2 layers) -> linear head: 27
    parameters. A stock layer registers norm1 after its linears and uses it before them."""

    def __init__(self, vocab=100, d=32, ff=64, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 4, ff, dropout=0.0), layers)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        return self.head(self.encoder(self.embed(ids)))


def conv_bn():
    """Two conv + BatchNorm blocks and a linear classifier (10 parameters, several of 8 or 16
    elements: conv biases and BatchNorm weights and biases)."""
    return nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 16, 3), nn.BatchNorm2d(16),
                         nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))


class TiedEmbedding(nn.Module):
    """A language-model head tied to its embedding (head.weight is embed.weight: one parameter,
    used first and last, whose gradient is ready only after both uses)."""

    def __init__(self, vocab=50, d=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.hidden = nn.Linear(d, d)
        self.head = nn.Linear(d, vocab)
        self.head.weight = self.embed.weight

    def forward(self, ids):
        return self.head(torch.tanh(self.hidden(self.embed(ids))))


def token_batch():
    """One batch for TokenTransformer: token ids, sequence 6, batch 3."""
    return torch.randint(0, 100, (6, 3))


# name -> (builder, one batch)
MODELS = {
    "transformer": (TokenTransformer, token_batch),
    "conv_bn": (conv_bn, lambda: torch.randn(2, 3, 8, 8)),
    "tied_embedding": (TiedEmbedding, lambda: torch.randint(0, 50, (4, 5))),
}


def loss_fn(model, batch):
    return model(batch).float().pow(2).mean()


def traced_with_truth(model, make_batch, path, marked, iterations=2):
    """Profiles `iterations` backward passes (markers on or off); returns the ready order per
    iteration as autograd's tensor hooks saw it."""
    names = {id(p): n for n, p in model.named_parameters()}
    orders, handles = [], []
    for p in model.parameters():
        handles.append(p.register_hook(lambda g, key=id(p): orders[-1].append(names[key])))
    marks = mark_gradients(model) if marked else contextlib.nullcontext()
    with marks, torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        for _ in range(iterations):
            orders.append([])
            model.zero_grad(set_to_none=False)
            loss_fn(model, make_batch()).backward()
    prof.export_chrome_trace(path)
    for h in handles:
        h.remove()
    return orders
