import torch
q = torch.randn(2, 4, 128, 64, device='cuda', dtype=torch.float16)
o = torch.nn.functional.scaled_dot_product_attention(q, q, q)
print(o.shape)
