import torch
net = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10)).to('cuda')
x = torch.randn(8, 32, device='cuda')
loss = torch.nn.functional.cross_entropy(net(x), torch.zeros(8, dtype=torch.long, device=x.device))
loss.backward()
print(loss.item())
