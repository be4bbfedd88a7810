# The seeds' PyTorch check: import torch, a Conv2d on the GPU compared with the CPU.
import torch
x = torch.randn(4, 3, 32, 32)
conv = torch.nn.Conv2d(3, 16, 3, padding=1)
ref = conv(x)
out = conv.cuda()(x.cuda()).cpu()
assert torch.backends.cudnn.is_available()
err = (out - ref).abs().max().item()
print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version(), "max_abs_err", err)
assert torch.allclose(out, ref, atol=1e-2)
