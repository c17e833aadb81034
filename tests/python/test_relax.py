"""tessera.relax: seed 002's BlockBuilder (emit_te of te_matmul and te_relu), the MLP of
call_dps_packed calls to registered Python functions (env.linear, env.relu) and to PrimFuncs,
BindParams, update_func with a scheduled PrimFunc, relax.build and the VirtualMachine, checked
against NumPy."""
import threading
import unittest

import numpy as np

import tessera
from tessera import relax, te, tir


def te_matmul(A, B):
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((A.shape[0], B.shape[1]),
                      lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")


def te_relu(A):
    return te.compute(A.shape, lambda i, j: te.max(A[i, j], 0), name="relu")


def te_linear(X, W, B):
    """X @ W.T + B as one PrimFunc (seed 002's linear0 with its two blocks)."""
    k = te.reduce_axis((0, X.shape[1]), name="k")
    Y = te.compute((X.shape[0], W.shape[0]),
                   lambda i, j: te.sum(X[i, k] * W[j, k], axis=k), name="Y")
    return te.compute(Y.shape, lambda i, j: Y[i, j] + B[j], name="Z")


def numpy_mlp(data, w0, b0, w1, b1):
    return np.maximum(data @ w0.T + b0, 0) @ w1.T + b1


def mlp_params(seed=0):
    rng = np.random.default_rng(seed)
    return {"w0": rng.standard_normal((128, 784)).astype("float32") * 0.05,
            "b0": rng.standard_normal((128,)).astype("float32"),
            "w1": rng.standard_normal((10, 128)).astype("float32") * 0.1,
            "b1": rng.standard_normal((10,)).astype("float32")}


def mlp_vars():
    return (relax.Var("x", relax.TensorStructInfo((1, 784), "float32")),
            relax.Var("w0", relax.TensorStructInfo((128, 784), "float32")),
            relax.Var("b0", relax.TensorStructInfo((128,), "float32")),
            relax.Var("w1", relax.TensorStructInfo((10, 128), "float32")),
            relax.Var("b1", relax.TensorStructInfo((10,), "float32")))


class RelaxTest(unittest.TestCase):
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

    def test_block_builder_emit_te(self):
        A = relax.Var("A", relax.TensorStructInfo((128, 128), "float32"))
        B = relax.Var("B", relax.TensorStructInfo((128, 128), "float32"))
        bb = relax.BlockBuilder()
        with bb.function("main"):
            with bb.dataflow():
                C = bb.emit_te(te_matmul, A, B)
                D = bb.emit_te(te_relu, C)
                self.assertIsInstance(C, relax.DataflowVar)
                self.assertIsInstance(C, relax.Var)
                R = bb.emit_output(D)
            bb.emit_func_output(R, params=[A, B])
        mod = bb.get()
        text = mod.script()
        self.assertIn("def te_matmul(", text)
        self.assertIn("def te_relu(", text)
        self.assertIn("R.call_tir(cls.te_matmul, (A, B)", text)
        self.assertIn("with R.dataflow():", text)
        vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tessera.cpu())
        rng = np.random.default_rng(0)
        a, b = (rng.standard_normal((128, 128)).astype("float32") for _ in range(2))
        out = vm["main"](tessera.nd.array(a), tessera.nd.array(b))
        np.testing.assert_allclose(out.numpy(), np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)

    def mlp_module(self, linear0, relu, linear1):
        """main as seed 002's three call_dps_packed calls to the named functions."""
        x, w0, b0, w1, b1 = mlp_vars()
        bb = relax.BlockBuilder()
        with bb.function("main", params=[x, w0, b0, w1, b1]):
            with bb.dataflow():
                lv0 = bb.emit(relax.call_dps_packed(
                    linear0, (x, w0, b0), relax.TensorStructInfo((1, 128), "float32")))
                lv1 = bb.emit(relax.call_dps_packed(
                    relu, (lv0,), relax.TensorStructInfo((1, 128), "float32")))
                out = bb.emit_output(relax.call_dps_packed(
                    linear1, (lv1, w1, b1), relax.TensorStructInfo((1, 10), "float32")))
            bb.emit_func_output(out)
        return bb

    def run_mlp(self, mod, bound=False):
        params = mlp_params()
        data = np.random.default_rng(1).standard_normal((1, 784)).astype("float32")
        vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tessera.cpu())
        nd_params = {k: tessera.nd.array(v) for k, v in params.items()}
        args = [] if bound else [nd_params[k] for k in ("w0", "b0", "w1", "b1")]
        res = vm["main"](tessera.nd.array(data), *args)
        np.testing.assert_allclose(res.numpy(), numpy_mlp(data, **params), rtol=1e-4, atol=1e-4)
        return vm

    def test_extern_call_mlp(self):
        """MyModuleWithExternCall: every step a registered Python function."""
        mod = self.mlp_module("env.linear", "env.relu", "env.linear").get()
        self.assertIn('R.call_dps_packed("env.linear"', mod.script())
        self.run_mlp(mod)

    def test_mixture_bind_params_and_scheduled_update(self):
        """MyModuleMixture: linear0 a PrimFunc, then BindParams and a scheduled linear0."""
        bb = self.mlp_module("linear0", "env.relu", "env.linear")
        X = te.placeholder((1, 784), name="X")
        W = te.placeholder((128, 784), name="W")
        B = te.placeholder((128,), name="B")
        linear0 = te.create_prim_func([X, W, B, te_linear(X, W, B)])
        mod = bb.get()
        mod["linear0"] = linear0.with_attr("global_symbol", "linear0")
        self.run_mlp(mod)
        nd_params = {k: tessera.nd.array(v) for k, v in mlp_params().items()}
        bound = relax.transform.BindParams("main", nd_params)(mod)
        self.assertEqual(len(bound["main"].params), 1)
        self.run_mlp(bound, bound=True)

        mod_linear = tessera.IRModule.from_expr(bound["linear0"].with_attr("global_symbol", "main"))
        sch = tir.Schedule(mod_linear, seed=0)
        block_y = sch.get_block("Y", "main")
        i, j, k = sch.get_loops(block_y)
        j0, j1 = sch.split(j, factors=sch.sample_perfect_tile(j, n=2))
        sch.reorder(i, j0, k, j1)
        sch.decompose_reduction(block_y, k)
        new_func = sch.mod["main"].with_attr("global_symbol", "linear0")
        gv = bound.get_global_var("linear0")
        bound.update_func(gv, new_func)
        self.assertIn("Y_init", bound.script())
        vm = self.run_mlp(bound, bound=True)
        data = tessera.nd.array(np.zeros((1, 784), "float32"))
        self.assertGreater(vm.module.time_evaluator("main", tessera.cpu(), number=3)(data).mean, 0)

    def test_missing_function_and_bad_input(self):
        mod = self.mlp_module("env.missing", "env.relu", "env.linear").get()
        with self.assertRaises(tessera.DiagnosticError):
            relax.VirtualMachine(relax.build(mod), tessera.cpu())["main"](
                *[tessera.nd.array(np.zeros(s, "float32"))
                  for s in ((1, 784), (128, 784), (128,), (10, 128), (10,))])
        bb = relax.BlockBuilder()
        with self.assertRaises(tessera.DiagnosticError):
            bb.emit(relax.const(np.zeros(3, "float32")))

    def test_seed_torch_functions(self):
        """Seed 002's env.linear and env.relu verbatim: PyTorch writes into the VM's output
        through DLPack."""
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

        self.run_mlp(self.mlp_module("env.linear", "env.relu", "env.linear").get())

    def test_vms_in_threads_call_python(self):
        """The VM runs without the GIL; each thread's VM calls the Python functions back."""
        mod = self.mlp_module("env.linear", "env.relu", "env.linear").get()
        ex = relax.build(mod)
        params = mlp_params()
        args = [tessera.nd.array(params[k]) for k in ("w0", "b0", "w1", "b1")]
        errors = []

        def work(seed):
            try:
                vm = relax.VirtualMachine(ex, tessera.cpu())
                data = np.random.default_rng(seed).standard_normal((1, 784)).astype("float32")
                for _ in range(5):
                    res = vm["main"](tessera.nd.array(data), *args)
                    np.testing.assert_allclose(res.numpy(), numpy_mlp(data, **params),
                                               rtol=1e-4, atol=1e-4)
            except Exception as e:  # pylint: disable=broad-except
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_builder_misuse_raises(self):
        x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
        bb = relax.BlockBuilder()
        with self.assertRaises(tessera.DiagnosticError):
            bb.emit(relax.op.add(x, x))  # no function is open
        with bb.function("main", [x]):
            with self.assertRaises(TypeError):
                bb.emit_te(lambda a: None, x)
            with self.assertRaises(tessera.DiagnosticError):
                bb.emit_output(x)  # outside a dataflow block
            with self.assertRaises(tessera.DiagnosticError):
                bb.get()  # main is still open
            bb.emit_func_output(x)
        with self.assertRaises(tessera.DiagnosticError):
            relax.transform.BindParams("main", {"x": np.zeros(3, "float32")})(bb.get())
        bound = relax.transform.BindParams("main", {"x": np.ones(2, "float32")})(bb.get())
        self.assertEqual(len(bound["main"].params), 0)

    def test_symbolic_shape(self):
        x = relax.Var("x", relax.TensorStructInfo(("n",), "float32"))
        bb = relax.BlockBuilder()
        with bb.function("main", [x]):
            with bb.dataflow():
                y = bb.emit_output(relax.op.nn.relu(relax.op.add(x, x)))
            bb.emit_func_output(y)
        vm = relax.VirtualMachine(relax.build(bb.get()), tessera.cpu())
        out = vm["main"](tessera.nd.array(np.array([-1, 2, 3], "float32")))
        np.testing.assert_array_equal(out.numpy(), [0, 4, 6])
        with self.assertRaises(tessera.DiagnosticError):
            vm["nope"](out)

    def test_callback_exception_reaches_the_caller(self):
        @tessera.register_func("env.relu", override=True)
        def failing_relu(x, out):
            raise RuntimeError("relu failed")

        mod = self.mlp_module("env.linear", "env.relu", "env.linear").get()
        with self.assertRaises(RuntimeError):
            self.run_mlp(mod)


if __name__ == "__main__":
    unittest.main()
