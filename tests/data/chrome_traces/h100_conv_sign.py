# Run on an NVIDIA H100 (torch 2.11.0+cu130, 2026-11-27); its trace is h100_conv_sign.json.gz.
import torch
from torch.profiler import profile, ProfilerActivity
m = torch.nn.Conv2d(3, 8, 3).to('cuda'); x = torch.randn(2, 3, 16, 16, device='cuda')
acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
with profile(activities=acts) as p:
    y = torch.sign(m(x)); y.sum().item()
p.export_chrome_trace('conv_sign_trace.json')
