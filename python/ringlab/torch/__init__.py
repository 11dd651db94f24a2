"""ringlab inside PyTorch: bucket plans applied to a training loop (buckets), gradient timelines
recorded in the same run (timeline)."""
