"""Seed 004 (optimizing 2D convolution for VTA) with `tvm` replaced by `tessera`: ResNet-18's
layer (1x256x14x14, 256 filters 3x3, pad 1) in VTA's packed layout, scheduled with the seed's
tiling, virtual threads, SRAM scopes, DMA pragmas and GEMM tensorization, lowered under
vta.build_config(), run on the simulator, checked against NumPy, and the simulator's counters.

Change from the seed: Tessera has no legacy `te.create_schedule`, so the seed's te.compute
definition is `vta.topi.conv2d_packed_func` and its schedule, step for step on a tir.Schedule,
`vta.topi.schedule_conv2d_packed`."""
import numpy as np

import tessera as tvm
from tessera import tir
from tessera import vta
from tessera.vta.testing import simulator

env = vta.get_env()
# Output channel factor m - total 16x16=256 output channels
batch_size, height, width = 1, 14, 14
in_channels, out_channels = 256, 256
data_shape = (batch_size // env.BATCH, in_channels // env.BLOCK_IN, height, width, env.BATCH,
              env.BLOCK_IN)
kernel_shape = (out_channels // env.BLOCK_OUT, in_channels // env.BLOCK_IN, 3, 3,
                env.BLOCK_OUT, env.BLOCK_IN)

func = vta.topi.conv2d_packed_func(batch=batch_size, in_channels=in_channels, height=height,
                                   width=width, out_channels=out_channels, kernel=3, pad=1,
                                   stride=1, shift=env.INP_WIDTH)
sch = tir.Schedule(func)
vta.topi.schedule_conv2d_packed(sch)
with vta.build_config():
    mod = tvm.tir.lower(sch.mod)
text = mod.script()
# The VTA runtime calls and intrinsics of the seed's lowered program, and how often each occurs.
for name in ("VTALoadBuffer2D", "VTAUopLoopBegin", "vta.uop_push", "VTAPushGEMMOp",
             "VTAPushALUOp", "vta.coproc_dep_push", "vta.coproc_dep_pop", "VTAStoreBuffer2D"):
    print("lowered {:<20}: {}".format(name, text.count(name)))

np.random.seed(4)
data_np = np.random.randint(-128, 128, size=data_shape).astype(env.inp_dtype)
kernel_np = np.random.randint(-128, 128, size=kernel_shape).astype(env.wgt_dtype)
res_nd = tvm.nd.array(np.zeros((1, out_channels // env.BLOCK_OUT, height, width, env.BATCH,
                                env.BLOCK_OUT), env.inp_dtype))
simulator.clear_stats()
vta.run(mod, tvm.nd.array(data_np), kernel_np, res_nd)
sim_stats = simulator.stats()

# Reference: conv2d on the unpacked layouts, >> shift, clip to [0, 127].
d = data_np.transpose(0, 4, 1, 5, 2, 3).reshape(1, in_channels, height, width).astype(np.int32)
k = kernel_np.transpose(0, 4, 1, 5, 2, 3).reshape(out_channels, in_channels, 3, 3).astype(np.int32)
d = np.pad(d, ((0, 0), (0, 0), (1, 1), (1, 1)))
ref = np.zeros((1, out_channels, height, width), np.int64)
for dy in range(3):
    for dx in range(3):
        ref += np.einsum("nchw,oc->nohw", d[:, :, dy:dy + height, dx:dx + width],
                         k[:, :, dy, dx], optimize=True)
ref = np.clip(ref >> env.INP_WIDTH, 0, 127).astype(np.int8)
ref = ref.reshape(1, out_channels // env.BLOCK_OUT, env.BLOCK_OUT, height, width, 1)
ref = ref.transpose(0, 1, 3, 4, 5, 2)
np.testing.assert_equal(res_nd.numpy(), ref)
print("Execution statistics:")
for k, v in sim_stats.items():
    print("\t{:<16}: {:>16}".format(k, v))
print("Successful 2D convolution test!")
