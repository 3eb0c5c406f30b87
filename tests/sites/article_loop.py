# The article's training loop as its post wrote it (module level, `.item()` for the log and for
# the every-100 print), recorded by torch.profiler with Python stacks, one ProfilerStep per
# epoch. tests/sites/test_article_loop.py runs it and checks the sites ./attribute finds.
#   python tests/sites/article_loop.py OUT.json [--epochs N] [--optimizer sgd|adam] [--device D]
import argparse
import sys

import torch
from torch import nn, optim

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--epochs", type=int, default=300)
ap.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd")
ap.add_argument("--device", default="cpu")
args = ap.parse_args()

torch.manual_seed(0)
device = torch.device(args.device)
X_train = torch.rand(120, 4, device=device)  # Iris' shape; the values do not matter here
y_train = torch.randint(0, 3, (120,), device=device)
model = nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 3)).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = (optim.SGD if args.optimizer == "sgd" else optim.Adam)(model.parameters(), lr=0.01)

losses = []
# A schedule, so that each prof.step() closes a ProfilerStep#N range (without one it marks none).
every_epoch = torch.profiler.schedule(wait=0, warmup=0, active=args.epochs, repeat=1)
with torch.profiler.profile(
    with_stack=True,
    schedule=every_epoch,
    on_trace_ready=lambda p: p.export_chrome_trace(args.out),
) as prof:
    for epoch in range(args.epochs):
        outputs = model(X_train)
        loss = criterion(outputs, y_train)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if (epoch + 1) % 100 == 0:
            print(f"Epoch [{epoch + 1}/{args.epochs}], Loss: {loss.item():.4f}")
        prof.step()
print(f"wrote {args.out}", file=sys.stderr)
