"""tessera.te and tessera.tir: seed 002's tensor expressions (te_matmul, te_relu, the fused
mm_relu), tir.Schedule with its primitives and trace (stochastic_schedule_mm), and tessera.build
of the scheduled PrimFuncs, checked against NumPy."""
import unittest

import numpy as np

import tessera
from tessera import te, tir


def te_matmul(A, B):
    assert A.shape[1] == B.shape[0]
    n = A.shape[0]
    m = B.shape[1]
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")


def te_relu(A):
    return te.compute(A.shape, lambda i, j: te.max(A[i, j], 0), name="relu")


def mm_module(name="C"):
    """Seed 002's 128x128 matmul as a module whose block is named ``name``."""
    A = te.placeholder((128, 128), name="A", dtype="float32")
    B = te.placeholder((128, 128), name="B", dtype="float32")
    k = te.reduce_axis((0, 128), name="k")
    C = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name=name)
    return tessera.IRModule.from_expr(te.create_prim_func([A, B, C]))


def stochastic_schedule_mm(sch):
    block_C = sch.get_block("C", "main")
    i, j, k = sch.get_loops(block=block_C)
    j_factors = sch.sample_perfect_tile(loop=j, n=2)
    j_0, j_1 = sch.split(loop=j, factors=j_factors)
    sch.reorder(i, j_0, k, j_1)
    sch.decompose_reduction(block_C, k)
    return sch


def arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype("float32") for s in shapes]


class TeTest(unittest.TestCase):
    def test_te_matmul_prim_func(self):
        A = te.placeholder((128, 128), name="A", dtype="float32")
        B = te.placeholder((128, 128), name="B", dtype="float32")
        C = te_matmul(A, B)
        self.assertEqual([int(d) for d in C.shape], [128, 128])
        self.assertEqual(C.dtype, "float32")
        text = te.create_prim_func([A, B, C]).script()
        self.assertIn('with T.block("matmul")', text)
        self.assertIn('T.axis.remap("SSR", [i, j, k])', text)
        self.assertIn("with T.init():", text)

    def test_fused_mm_relu_allocates_the_intermediate(self):
        A = te.placeholder((128, 128), name="A", dtype="float32")
        B = te.placeholder((128, 128), name="B", dtype="float32")
        D = te_relu(te_matmul(A, B))
        fused = te.create_prim_func([A, B, D])
        self.assertIn("T.alloc_buffer", fused.script())
        a, b = arrays((128, 128), (128, 128))
        d = tessera.nd.empty((128, 128), "float32")
        tessera.build(fused, target="llvm")["main"](tessera.nd.array(a), tessera.nd.array(b), d)
        np.testing.assert_allclose(d.numpy(), np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)

    def test_relu_and_symbolic_shapes(self):
        n = te.var("n")
        X = te.placeholder((n, 128), name="X1", dtype="float32")
        Y = te_relu(X)
        func = te.create_prim_func([X, Y])
        self.assertIn("T.max", func.script())
        (x,) = arrays((3, 128))
        y = tessera.nd.empty((3, 128), "float32")
        tessera.build(func)["main"](tessera.nd.array(x), y)
        np.testing.assert_array_equal(y.numpy(), np.maximum(x, 0))

    def test_expression_equality_and_hash(self):
        A = te.placeholder((8, 4), name="A")
        self.assertEqual(A.shape[0], 8)
        self.assertEqual(hash(A.shape[0]), hash(8))
        self.assertEqual(tir.const(1.5, "float32"), 1.5)
        self.assertEqual(hash(tir.const(1.5, "float32")), hash(1.5))
        n = te.var("n")
        self.assertEqual(n, n)
        self.assertNotEqual(n, te.var("n"))
        self.assertEqual(str(n * 2 + 1), "n * 2 + 1")
        self.assertEqual((A.shape[0] // 3).dtype, "int32")

    def test_lambda_errors_propagate(self):
        A = te.placeholder((4,), name="A")
        with self.assertRaises(ValueError):
            te.compute((4, 4), lambda i: A[i])
        with self.assertRaises(ZeroDivisionError):
            te.compute((4,), lambda i: 1 / 0)
        with self.assertRaises(tessera.DiagnosticError):
            te.compute((4,), lambda i: A[i, i])


class ScheduleTest(unittest.TestCase):
    def run_mm(self, mod):
        a, b = arrays((128, 128), (128, 128), seed=1)
        c = tessera.nd.empty((128, 128), "float32")
        lib = tessera.build(mod, target="llvm")
        lib["main"](tessera.nd.array(a), tessera.nd.array(b), c)
        np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-3)
        return lib

    def test_fixed_split(self):
        sch = tir.Schedule(mm_module())
        block_c = sch.get_block("C", "main")
        i, j, k = sch.get_loops(block_c)
        j0, j1 = sch.split(j, factors=[None, 4])
        text = sch.mod.script()
        self.assertIn("for i, j_0, j_1, k in T.grid(128, 32, 4, 128):", text)
        self.assertIn("v_j = T.axis.spatial(128, j_0 * 4 + j_1)", text)
        self.run_mm(sch.mod)

    def test_stochastic_schedule_and_trace(self):
        decisions = set()
        for seed in range(6):
            sch = stochastic_schedule_mm(tir.Schedule(mm_module(), seed=seed))
            trace = str(sch.trace)
            self.assertIn("def apply_trace(sch: tir.Schedule) -> None:", trace)
            self.assertIn('b0 = sch.get_block(name="C", func_name="main")', trace)
            self.assertIn("sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=16, "
                          "decision=[", trace)
            self.assertIn("sch.reorder(l1, l6, l3, l7)", trace)
            self.assertIn("b8 = sch.decompose_reduction(block=b0, loop=l3)", trace)
            decisions.add(trace.split("decision=")[1].split("]")[0])
            self.assertIn('with T.block("C_init")', sch.mod.script())
            self.run_mm(sch.mod)
        self.assertGreater(len(decisions), 1)

    def test_random_search_time_evaluator(self):
        sch = stochastic_schedule_mm(tir.Schedule(mm_module(), seed=3))
        lib = self.run_mm(sch.mod)
        a, b = arrays((128, 128), (128, 128))
        c = tessera.nd.empty((128, 128), "float32")
        result = lib.time_evaluator("main", tessera.cpu(), number=2)(
            tessera.nd.array(a), tessera.nd.array(b), c)
        self.assertGreater(result.mean, 0)

    def test_trace_replays_with_decision(self):
        sch = stochastic_schedule_mm(tir.Schedule(mm_module(), seed=0))
        replay = tir.Schedule(mm_module())
        sch.trace.apply_to_schedule(replay)
        self.assertEqual(replay.mod.script(), sch.mod.script())
        forced = tir.Schedule(mm_module())
        j = forced.get_loops(forced.get_block("C"))[1]
        v = forced.sample_perfect_tile(j, n=2, decision=[16, 8])
        self.assertEqual([forced.get(x) for x in v], [16, 8])

    def test_loop_primitives(self):
        sch = tir.Schedule(mm_module(), seed=0)
        block = sch.get_block("C")
        i, j, k = sch.get_loops(block)
        ij = sch.fuse(i, j)
        outer, inner = sch.split(ij, factors=[None, 64])
        sch.parallel(outer)
        ko, ki = sch.split(k, factors=[32, 4])
        sch.unroll(ki)
        sch.annotate(block, "test.note", 1)
        self.assertIn("T.parallel", sch.mod.script())
        self.run_mm(sch.mod)

    def test_cache_write_reverse_compute_at_vectorize(self):
        sch = tir.Schedule(mm_module(), seed=0)
        block = sch.get_block("C")
        i, j, k = sch.get_loops(block)
        j0, j1 = sch.split(j, factors=[None, 8])
        sch.reorder(i, j0, k, j1)
        write = sch.cache_write(block, 0, "global")
        sch.reverse_compute_at(write, j0)
        sch.decompose_reduction(block, k)
        sch.vectorize(sch.get_loops(write)[-1])
        self.assertIn("C_global", sch.mod.script())
        self.run_mm(sch.mod)

    def test_compute_inline_and_compute_at(self):
        A = te.placeholder((64, 64), name="A")
        B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
        C = te.compute((64, 64), lambda i, j: B[i, j] + 1.0, name="C")
        mod = tessera.IRModule.from_expr(te.create_prim_func([A, C]))
        (a,) = arrays((64, 64))
        for how in ("inline", "at", "location"):
            sch = tir.Schedule(mod, seed=0)
            if how == "inline":
                sch.compute_inline(sch.get_block("B"))
                self.assertNotIn('T.block("B")', sch.mod.script())
            elif how == "at":
                sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("C"))[0])
            else:
                loc = sch.sample_compute_location(sch.get_block("B"))
                sch.compute_at(sch.get_block("B"), loc)
            c = tessera.nd.empty((64, 64), "float32")
            tessera.build(sch.mod)["main"](tessera.nd.array(a), c)
            np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)

    def test_failed_primitive_raises_and_keeps_the_schedule(self):
        sch = tir.Schedule(mm_module(), seed=0)
        before = sch.mod.script()
        i, _, _ = sch.get_loops(sch.get_block("C"))
        with self.assertRaises(tessera.DiagnosticError) as raised:
            sch.split(i, factors=[None, None])
        self.assertEqual(raised.exception.code, "schedule")
        with self.assertRaises(tessera.DiagnosticError):
            sch.get_block("nope")
        self.assertEqual(sch.mod.script(), before)
        c = sch.sample_categorical([1, 2, 4], [0.2, 0.3, 0.5], decision=2)
        self.assertEqual(sch.get(c), 4)


if __name__ == "__main__":
    unittest.main()
