"""tessera.script (TVMScript in): seed 002's MyModule, MyModuleWithExternCall and
MyModuleMixture as the seed writes them (imports changed to tessera), built and run on the
Relax VM against NumPy, with registered Python functions; @T.prim_func and @R.function alone;
from_source of printed text; mistakes raise DiagnosticError at the line of this file."""
import inspect
import unittest

import numpy as np

import tessera
from tessera import relax
from tessera.script import ir as I
from tessera.script import relax as R
from tessera.script import tir as T


@tessera.script.ir_module
class MyModule:
    @T.prim_func
    def relu0(x: T.handle, y: T.handle):
        n = T.int64()
        X = T.match_buffer(x, (1, n), "float32")
        Y = T.match_buffer(y, (1, n), "float32")
        for i, j in T.grid(1, n):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def linear0(x: T.handle,
                w: T.handle,
                b: T.handle,
                z: T.handle):
        m, n, k = T.int64(), T.int64(), T.int64()
        X = T.match_buffer(x, (1, m), "float32")
        W = T.match_buffer(w, (n, m), "float32")
        B = T.match_buffer(b, (n, ), "float32")
        Z = T.match_buffer(z, (1, n), "float32")
        Y = T.alloc_buffer((1, n), "float32")
        for i, j, k in T.grid(1, n, m):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, n):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor((1, "m"), "float32"),
             w0: R.Tensor(("n", "m"), "float32"),
             b0: R.Tensor(("n", ), "float32"),
             w1: R.Tensor(("k", "n"), "float32"),
             b1: R.Tensor(("k", ), "float32")):
        m, n, k = T.int64(), T.int64(), T.int64()
        with R.dataflow():
            lv0 = R.call_dps_packed("linear0", (x, w0, b0), R.Tensor((1, n), "float32"))
            lv1 = R.call_dps_packed("relu0", (lv0, ), R.Tensor((1, n), "float32"))
            out = R.call_dps_packed("linear0", (lv1, w1, b1), R.Tensor((1, k), "float32"))
            R.output(out)
        return out


@tessera.script.ir_module
class MyModuleWithExternCall:
    @R.function
    def main(x: R.Tensor((1, "m"), "float32"),
             w0: R.Tensor(("n", "m"), "float32"),
             b0: R.Tensor(("n", ), "float32"),
             w1: R.Tensor(("k", "n"), "float32"),
             b1: R.Tensor(("k", ), "float32")):
        # block 0
        m, n, k = T.int64(), T.int64(), T.int64()
        with R.dataflow():
            lv0 = R.call_dps_packed("env.linear", (x, w0, b0), R.Tensor((1, n), "float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0, ), R.Tensor((1, n), "float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), R.Tensor((1, k), "float32"))
            R.output(out)
        return out


@I.ir_module
class MyModuleMixture:
    @T.prim_func
    def linear0(x: T.handle,
                w: T.handle,
                b: T.handle,
                z: T.handle):
        m, n, k = T.int64(), T.int64(), T.int64()
        X = T.match_buffer(x, (1, m), "float32")
        W = T.match_buffer(w, (n, m), "float32")
        B = T.match_buffer(b, (n, ), "float32")
        Z = T.match_buffer(z, (1, n), "float32")
        Y = T.alloc_buffer((1, n), "float32")
        for i, j, k in T.grid(1, n, m):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, n):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor((1, "m"), "float32"),
             w0: R.Tensor(("n", "m"), "float32"),
             b0: R.Tensor(("n", ), "float32"),
             w1: R.Tensor(("k", "n"), "float32"),
             b1: R.Tensor(("k", ), "float32")):
        m, n, k = T.int64(), T.int64(), T.int64()
        with R.dataflow():
            lv0 = R.call_dps_packed("linear0", (x, w0, b0), R.Tensor((1, n), "float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0, ), R.Tensor((1, n), "float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), R.Tensor((1, k), "float32"))
            R.output(out)
        return out


@T.prim_func
def add_one(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + T.float32(1.0)


@R.function
def double(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
    n = T.int64()
    with R.dataflow():
        y = R.add(x, x)
        R.output(y)
    return y


def mlp_params(seed=0):
    rng = np.random.default_rng(seed)
    return {"w0": rng.standard_normal((128, 784)).astype("float32") * 0.05,
            "b0": rng.standard_normal((128,)).astype("float32"),
            "w1": rng.standard_normal((10, 128)).astype("float32") * 0.1,
            "b1": rng.standard_normal((10,)).astype("float32")}


def numpy_mlp(data, w0, b0, w1, b1):
    return np.maximum(data @ w0.T + b0, 0) @ w1.T + b1


class TVMScriptTest(unittest.TestCase):
    def setUp(self):
        @tessera.register_func("env.linear", override=True)
        def numpy_linear(x, w, b, out):
            out.copyfrom(x.numpy() @ w.numpy().T + b.numpy())

        @tessera.register_func("env.relu", override=True)
        def numpy_relu(x, out):
            out.copyfrom(np.maximum(x.numpy(), 0))

    def tearDown(self):
        tessera.remove_global_func("env.linear")
        tessera.remove_global_func("env.relu")

    def run_seed(self, mod):
        """Seed 002's steps: relax.build, VirtualMachine, vm["main"](data, *params)."""
        params = mlp_params()
        data = np.random.default_rng(1).standard_normal((1, 784)).astype("float32")
        ex = relax.build(mod, target="llvm")
        vm = relax.VirtualMachine(ex, tessera.cpu())
        nd_params = {k: tessera.nd.array(v) for k, v in params.items()}
        nd_res = vm["main"](tessera.nd.array(data), nd_params["w0"], nd_params["b0"],
                            nd_params["w1"], nd_params["b1"])
        np.testing.assert_allclose(nd_res.numpy(), numpy_mlp(data, **params), rtol=1e-4,
                                   atol=1e-4)

    def test_my_module_runs_its_prim_funcs(self):
        self.assertIsInstance(MyModule, relax.IRModule)
        self.assertEqual(MyModule.names(), ["relu0", "linear0", "main"])
        text = MyModule.script()
        self.assertIn("def relu0(x: T.handle, y: T.handle):", text)
        self.assertIn('lv1 = R.call_dps_packed("relu0", (lv0,), out_sinfo=R.Tensor((1, n), '
                      'dtype="float32"))', text)
        self.run_seed(MyModule)

    def test_extern_call_runs_registered_python_functions(self):
        calls = []

        @tessera.register_func("env.relu", override=True)
        def counting_relu(x, out):
            calls.append(x.shape)
            out.copyfrom(np.maximum(x.numpy(), 0))

        self.run_seed(MyModuleWithExternCall)
        self.assertEqual(calls, [(1, 128)])

    def test_extern_call_with_the_seeds_torch_functions(self):
        try:
            import torch
        except ImportError:
            self.skipTest("python3-torch is not installed")

        @tessera.register_func("env.linear", override=True)
        def torch_linear(x, w, b, out):
            x_torch = torch.from_dlpack(x)
            w_torch = torch.from_dlpack(w)
            b_torch = torch.from_dlpack(b)
            out_torch = torch.from_dlpack(out)
            torch.mm(x_torch, w_torch.T, out=out_torch)
            torch.add(out_torch, b_torch, out=out_torch)

        @tessera.register_func("env.relu", override=True)
        def lnumpy_relu(x, out):
            x_torch = torch.from_dlpack(x)
            out_torch = torch.from_dlpack(out)
            torch.maximum(x_torch, torch.Tensor([0.0]), out=out_torch)

        self.run_seed(MyModuleWithExternCall)

    def test_mixture_and_bind_params(self):
        self.run_seed(MyModuleMixture)
        nd_params = {k: tessera.nd.array(v) for k, v in mlp_params().items()}
        bound = relax.transform.BindParams("main", nd_params)(MyModuleMixture)
        text = bound.script()
        self.assertIn('def main(x: R.Tensor((1, 784), dtype="float32"))', text)
        self.assertIn('metadata["relax.expr.Constant"][0]', text)
        data = np.random.default_rng(2).standard_normal((1, 784)).astype("float32")
        vm = relax.VirtualMachine(relax.build(bound), tessera.cpu())
        np.testing.assert_allclose(vm["main"](tessera.nd.array(data)).numpy(),
                                   numpy_mlp(data, **mlp_params()), rtol=1e-4, atol=1e-4)

    def test_printed_module_parses_back_to_the_same_text(self):
        for mod in (MyModule, MyModuleWithExternCall, MyModuleMixture):
            text = mod.script()
            again = tessera.script.from_source(text)
            self.assertEqual(again.script(), text)

    def test_prim_func_alone_builds_and_runs(self):
        self.assertIsInstance(add_one, tessera.tir.PrimFunc)
        self.assertIn("T.reads(A[vi])", add_one.script())
        lib = tessera.build(add_one, target="llvm")
        a = tessera.nd.array(np.arange(8, dtype="float32"))
        b = tessera.nd.empty((8,), "float32")
        lib["add_one"](a, b)
        np.testing.assert_array_equal(b.numpy(), np.arange(8, dtype="float32") + 1)

    def test_relax_function_alone(self):
        self.assertIsInstance(double, relax.Function)
        self.assertEqual(len(double.params), 1)
        self.assertIn("y = R.add(x, x)", double.script("double"))

    def test_prim_func_only_module_is_a_tir_module(self):
        mod = tessera.script.from_source(add_one.script())
        self.assertIn("add_one", mod)
        sch = tessera.tir.Schedule(mod)
        self.assertEqual(len(sch.get_loops(sch.get_block("B", "add_one"))), 1)

    def test_block_builder_module_round_trips_and_runs(self):
        """Seed 002's emit_te module (int64 PrimFuncs called through cls) read back from its
        text, then built and run."""
        from tessera import te

        def te_matmul(A, B):
            k = te.reduce_axis((0, A.shape[1]), name="k")
            return te.compute((A.shape[0], B.shape[1]),
                              lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")

        def te_relu(A):
            return te.compute(A.shape, lambda i, j: te.max(A[i, j], 0), name="relu")

        A = relax.Var("A", relax.TensorStructInfo((16, 16), "float32"))
        B = relax.Var("B", relax.TensorStructInfo((16, 16), "float32"))
        bb = relax.BlockBuilder()
        with bb.function("main"):
            with bb.dataflow():
                C = bb.emit_te(te_matmul, A, B)
                D = bb.emit_te(te_relu, C)
                R_ = bb.emit_output(D)
            bb.emit_func_output(R_, params=[A, B])
        text = bb.get().script()
        self.assertIn("R.call_tir(cls.te_matmul, (A, B)", text)
        parsed = tessera.script.from_source(text)
        self.assertEqual(parsed.script(), text)
        a = np.random.default_rng(3).standard_normal((16, 16)).astype("float32")
        b = np.random.default_rng(4).standard_normal((16, 16)).astype("float32")
        vm = relax.VirtualMachine(relax.build(parsed), tessera.cpu())
        np.testing.assert_allclose(vm["main"](tessera.nd.array(a), tessera.nd.array(b)).numpy(),
                                   np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)

    def test_vta_kernel_round_trips(self):
        """Seed 004's VTA convolution, tensorized and lowered: match buffers defining their
        offsets, coprocessor scopes, VTA intrinsics."""
        from tessera import vta
        env = vta.get_env()
        sch = tessera.tir.Schedule(vta.topi.conv2d_packed_func(shift=env.INP_WIDTH))
        vta.topi.schedule_conv2d_packed(sch)
        with vta.build_config():
            lowered = tessera.tir.lower(sch.mod)
        for mod in (sch.mod, lowered):
            text = mod.script()
            self.assertEqual(tessera.script.from_source(text).script(), text)
        self.assertIn("elem_offset=out_offset", sch.mod.script())
        self.assertIn("T.vta.uop_push(", sch.mod.script())

    def test_mistake_raises_at_the_line_of_this_file(self):
        with self.assertRaises(tessera.DiagnosticError) as caught:
            @T.prim_func
            def broken(A: T.Buffer((4,), "float32")):
                for i in range(4):
                    A[i] = undefined_name[i]  # noqa: F821
        line = inspect.currentframe().f_lineno - 1  # the line of undefined_name
        err = caught.exception
        self.assertEqual(err.code, "tvmscript")
        self.assertEqual(err.span.line, line)
        self.assertTrue(err.span.source.endswith("test_tvmscript.py"))
        self.assertIn("undefined buffer 'undefined_name'", str(err))

    def test_misuse_raises_not_crashes(self):
        with self.assertRaises(tessera.DiagnosticError):
            tessera.script.from_source("@R.function\ndef f(x: R.Tensor((2,), 'float32')):\n"
                                       "    return R.nn.relu(R.add(x, x))\n")
        with self.assertRaises(tessera.DiagnosticError):
            tessera.script.from_source("def f(:\n")
        with self.assertRaises(TypeError):
            tessera.script.ir_module(42)


if __name__ == "__main__":
    unittest.main()
