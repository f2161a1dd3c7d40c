import torch
from torch.profiler import profile, ProfilerActivity
conv = torch.nn.Conv2d(3, 4, 3)
x = torch.randn(1, 3, 8, 8, requires_grad=True)
with profile(activities=[ProfilerActivity.CPU]) as prof:
    y = torch.relu(conv(x))
    y.sum().backward()
prof.export_chrome_trace("conv_relu_backward.json")
