"""Seed 004 (004_e290d835828675d0.txt) from Python with tessera.vta: ResNet-18's 9th layer as
vta.topi's packed convolution, seed 004's schedule, lowered under vta.build_config() and run on the
simulator with NumPy arrays; the output equals a NumPy reference and the seven counters are the
seed's. (The seed declares the layer with te.compute and schedules it with te.create_schedule,
which Tessera does not have; conv2d_packed_func is that TE graph and schedule_conv2d_packed its
schedule, step for step, on a tir.Schedule.)"""
import unittest

import numpy as np

import tessera as tvm
from tessera import tir
from tessera import vta
from tessera.vta.testing import simulator


def reference(data, kernel, shift=8):
    """NumPy conv2d (pad 1, stride 1) on the packed layouts, >> shift, clip(0, 127), int8."""
    n, ci, h, w = data.shape[0], data.shape[1] * data.shape[5], data.shape[2], data.shape[3]
    d = data.transpose(0, 4, 1, 5, 2, 3).reshape(n, ci, h, w).astype(np.int32)
    k = kernel.transpose(0, 4, 1, 5, 2, 3).reshape(-1, ci, 3, 3).astype(np.int32)
    d = np.pad(d, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, k.shape[0], h, w), np.int64)
    for dy in range(3):
        for dx in range(3):
            window = d[:, :, dy:dy + h, dx:dx + w]
            out += np.einsum("nchw,oc->nohw", window, k[:, :, dy, dx], optimize=True)
    out = np.clip(out >> shift, 0, 127).astype(np.int8)
    return out.reshape(n, k.shape[0] // 16, 16, h, w, 1).transpose(0, 1, 3, 4, 5, 2)


class Seed004Test(unittest.TestCase):
    def test_conv2d_on_the_simulator(self):
        env = vta.get_env()
        func = vta.topi.conv2d_packed_func(shift=env.INP_WIDTH)
        sch = tir.Schedule(func)
        vta.topi.schedule_conv2d_packed(sch)
        with vta.build_config():
            mod = tvm.tir.lower(sch.mod)
        text = mod.script()
        self.assertIn("VTALoadBuffer2D", text)

        rng = np.random.default_rng(4)
        data_np = rng.integers(-32, 32, (1, 16, 14, 14, 1, 16)).astype(env.inp_dtype)
        kernel_np = rng.integers(-32, 32, (16, 16, 3, 3, 16, 16)).astype(env.wgt_dtype)
        res_np = np.zeros((1, 16, 14, 14, 1, 16), env.inp_dtype)
        data_arr = tvm.nd.array(data_np)
        res_arr = tvm.nd.array(res_np)
        simulator.clear_stats()
        vta.run(mod, data_arr, kernel_np, res_arr)
        stats = simulator.stats()
        np.testing.assert_array_equal(res_arr.numpy(), reference(data_np, kernel_np))
        self.assertEqual(stats, {
            "inp_load_nbytes": 114688, "wgt_load_nbytes": 1179648, "acc_load_nbytes": 0,
            "uop_load_nbytes": 1144, "out_store_nbytes": 50176, "gemm_counter": 451584,
            "alu_counter": 9408})
        # A NumPy output is filled in place too.
        vta.run(mod, data_np, kernel_np, res_np)
        np.testing.assert_array_equal(res_np, res_arr.numpy())

    def test_unknown_shape_field(self):
        func = vta.topi.conv2d_packed_func(in_channels=16, out_channels=16, height=4, width=4)
        sch = tir.Schedule(func)
        with self.assertRaises(KeyError):
            vta.topi.schedule_conv2d_packed(sch, shape={"channels": 16})


if __name__ == "__main__":
    unittest.main()
