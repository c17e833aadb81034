"""tir.Schedule from Python: the primitives test_te_tir.py does not reach (cache_read, blockize,
rfactor, reverse_compute_inline, set_scope, storage_align, add_unit_loop, bind, the block
queries, work_on, copy), trace JSON round trips, the tensor-intrinsic registry, and misuse that
must raise instead of crashing. Every scheduled function is built and compared with NumPy."""
import unittest

import numpy as np

import tessera
from tessera import te, tir


def matmul_module(n=64, name="C"):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name=name)
    return tessera.IRModule.from_expr(te.create_prim_func([A, B, C]))


def two_stage_module():
    A = te.placeholder((32, 32), name="A")
    B = te.compute((32, 32), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((32, 32), lambda i, j: B[i, j] + 1.0, name="C")
    return tessera.IRModule.from_expr(te.create_prim_func([A, C]))


class PrimitiveTest(unittest.TestCase):
    def check_matmul(self, sch, n=64):
        rng = np.random.default_rng(0)
        a, b = (rng.standard_normal((n, n)).astype("float32") for _ in range(2))
        c = tessera.nd.empty((n, n), "float32")
        tessera.build(sch.mod)["main"](tessera.nd.array(a), tessera.nd.array(b), c)
        np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-3)

    def check_two_stage(self, sch):
        a = np.random.default_rng(1).standard_normal((32, 32)).astype("float32")
        c = tessera.nd.empty((32, 32), "float32")
        tessera.build(sch.mod)["main"](tessera.nd.array(a), c)
        np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)

    def test_cache_read_compute_at(self):
        sch = tir.Schedule(matmul_module(), seed=0)
        block = sch.get_block("C")
        i, j, k = sch.get_loops(block)
        cached = sch.cache_read(block, 0, "global")
        sch.compute_at(cached, i)
        self.assertIn("A_global", sch.mod.script())
        self.assertIn("cache_read(block=b0, read_buffer_index=0", str(sch.trace))
        self.check_matmul(sch)

    def test_blockize(self):
        sch = tir.Schedule(matmul_module(16), seed=0)
        block = sch.get_block("C")
        i, j, k = sch.get_loops(block)
        i0, i1 = sch.split(i, factors=[None, 4])
        j0, j1 = sch.split(j, factors=[None, 4])
        k0, k1 = sch.split(k, factors=[None, 4])
        sch.reorder(i0, j0, k0, i1, j1, k1)
        outer = sch.blockize(i1)
        self.assertIn('with T.block("C_o")', sch.mod.script())
        self.assertEqual(len(sch.get_child_blocks(outer)), 1)  # the update (the init is a nest)
        self.check_matmul(sch, 16)

    def test_rfactor(self):
        sch = tir.Schedule(matmul_module(), seed=0)
        block = sch.get_block("C")
        _, _, k = sch.get_loops(block)
        _, ki = sch.split(k, factors=[None, 8])
        rf = sch.rfactor(ki, 0)
        self.assertIn("rf", sch.mod.script())
        self.assertEqual(len(sch.get_consumers(rf)), 1)
        self.check_matmul(sch)

    def test_reverse_compute_inline_and_queries(self):
        sch = tir.Schedule(two_stage_module(), seed=0)
        b, c = sch.get_block("B"), sch.get_block("C")
        self.assertEqual(len(sch.get_consumers(b)), 1)
        self.assertEqual(len(sch.get_producers(c)), 1)
        copy = sch.copy()
        sch.reverse_compute_inline(c)
        self.assertNotIn('T.block("C")', sch.mod.script())
        self.assertIn('T.block("C")', copy.mod.script())
        self.check_two_stage(sch)
        self.check_two_stage(copy)

    def test_storage_and_unit_loops(self):
        sch = tir.Schedule(two_stage_module(), seed=0)
        b = sch.get_block("B")
        sch.set_scope(b, 0, "global")
        sch.storage_align(b, 0, axis=0, factor=16, offset=1)
        sch.add_unit_loop(b)
        sch.annotate(sch.get_loops(b)[0], "pragma_test", "x")
        sch.unannotate(sch.get_loops(b)[0], "pragma_test")
        self.assertIn("buffer_dim_align", sch.mod.script())
        self.check_two_stage(sch)

    def test_bind_prints_thread_axis(self):
        sch = tir.Schedule(two_stage_module(), seed=0)
        i, _ = sch.get_loops(sch.get_block("C"))
        sch.bind(i, "threadIdx.x")
        self.assertIn('T.thread_binding(32, thread="threadIdx.x")', sch.mod.script())

    def test_work_on_and_trace_json(self):
        mod = matmul_module()
        mod["second"] = two_stage_module()["main"]
        sch = tir.Schedule(mod, seed=0)
        sch.work_on("second")
        i, j = sch.get_loops(sch.get_block("C"))
        sch.parallel(i)
        self.assertIn("T.parallel", sch.mod["second"].script())
        self.assertNotIn("T.parallel", sch.mod["main"].script())
        sch = tir.Schedule(matmul_module(), seed=0)
        j = sch.get_loops(sch.get_block("C"))[1]
        sch.split(j, factors=sch.sample_perfect_tile(j, n=2))
        trace = tir.Trace.from_json(sch.trace.json())
        self.assertEqual(str(trace), str(sch.trace))
        self.assertEqual(sch.trace.as_json()[0][0][0], "GetBlock")
        replay = tir.Schedule(matmul_module())
        trace.apply_to_schedule(replay)
        self.assertEqual(replay.mod.script(), sch.mod.script())

    def test_tensor_intrin_registry(self):
        A = te.placeholder((4, 4), name="A")
        B = te.compute((4, 4), lambda i, j: A[i, j] + 1.0, name="B")
        f = te.create_prim_func([A, B])
        tir.TensorIntrin.register("python.test.add1", f, f, override=True)
        self.assertIn("python.test.add1", tir.TensorIntrin.names())
        self.assertIsNotNone(tir.TensorIntrin.get("python.test.add1"))
        with self.assertRaises(tessera.DiagnosticError):
            tir.TensorIntrin.register("python.test.add1", f, f)
        other = te.create_prim_func([te.placeholder((8,), name="X")])
        with self.assertRaises(tessera.DiagnosticError):
            tir.TensorIntrin.register("python.test.bad", f, other)
        sch = tir.Schedule(matmul_module(), seed=0)
        with self.assertRaises(tessera.DiagnosticError):
            sch.tensorize(sch.get_loops(sch.get_block("C"))[1], "python.test.nope")


class MisuseTest(unittest.TestCase):
    """Wrong types and stale or foreign handles raise; the interpreter survives."""

    def test_schedule_misuse(self):
        sch = tir.Schedule(matmul_module(), seed=0)
        other = tir.Schedule(matmul_module(), seed=0)
        i, j, k = sch.get_loops(sch.get_block("C"))
        with self.assertRaises(TypeError):
            sch.split(i, factors=["a", 2])
        with self.assertRaises(TypeError):
            sch.reorder(i, "j")
        with self.assertRaises(TypeError):
            sch.sample_perfect_tile(i, n=2, decision="x")
        sch.fuse(i, j)
        with self.assertRaises(tessera.DiagnosticError):
            sch.split(i, factors=[None, 2])  # i no longer exists
        with self.assertRaises(tessera.DiagnosticError):
            other.parallel(sch.get_loops(sch.get_block("C"))[0])
        with self.assertRaises(tessera.DiagnosticError):
            tir.Trace.from_json("[[")

    def test_te_misuse(self):
        with self.assertRaises(TypeError):
            te.compute((4,), lambda i: "x")
        with self.assertRaises(TypeError):
            te.placeholder(("a", 3))
        with self.assertRaises(tessera.DiagnosticError):
            te.placeholder((3,), dtype="floaty")

    def test_build_and_call_misuse(self):
        lib = tessera.build(matmul_module(16))
        with self.assertRaises(tessera.DiagnosticError):
            tessera.build(matmul_module(16), target="cuda")
        with self.assertRaises(tessera.DiagnosticError):
            lib["main"](tessera.nd.empty((16, 16), "float32"))
        with self.assertRaises(tessera.DiagnosticError):
            lib["main"](*[tessera.nd.empty((3, 3), "float32")] * 3)
        with self.assertRaises(tessera.DiagnosticError):
            lib["main"](*[tessera.nd.empty((16, 16), "int32")] * 3)
        with self.assertRaises(AttributeError):
            lib["nope"]


if __name__ == "__main__":
    unittest.main()
