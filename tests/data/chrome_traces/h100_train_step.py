# Run on an NVIDIA H100 (torch 2.11.0+cu130, 2026-11-27); tensorboard_trace_handler wrote h100_train_step.json.gz.
import torch
from torch.profiler import profile, ProfilerActivity, schedule, tensorboard_trace_handler
net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8 * 14 * 14, 10)).to('cuda')
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(4, 3, 16, 16, device='cuda'); t = torch.zeros(4, dtype=torch.long, device='cuda')
acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
with profile(activities=acts, with_stack=True, schedule=schedule(wait=0, warmup=1, active=1, repeat=1), on_trace_ready=tensorboard_trace_handler('.', worker_name='train', use_gzip=True)) as p:
    for _ in range(2):
        opt.zero_grad(); loss = torch.nn.functional.cross_entropy(net(x), t); loss.backward(); opt.step(); p.step()
print(loss.item())
