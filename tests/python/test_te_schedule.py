"""te.create_schedule (the legacy TE schedule facade, tessera/te_schedule.py): each primitive
lowers to the same code as the equivalent tir.Schedule steps on te.create_prim_func's PrimFunc,
built schedules compute what NumPy computes, and misuse raises DiagnosticError (code
"te_schedule") naming the stage, never crashing the interpreter."""
import numpy as np
import pytest

import tessera
from tessera import te, tir, topi, vta


def elementwise(n=64, m=32):
    a = te.placeholder((n, m), name="A")
    b = te.compute((n, m), lambda i, j: a[i, j] + 1.0, name="B")
    c = te.compute((n, m), lambda i, j: b[i, j] * 2.0, name="C")
    return a, b, c


def matmul(n=32):
    a = te.placeholder((n, n), name="A")
    b = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    c = te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    return a, b, c, k


def tir_schedule(args):
    return tir.Schedule(te.create_prim_func(args))


def assert_same(s, args, sch):
    """The facade's lowered module is the tir.Schedule's."""
    assert tessera.lower(s, args).script() == tessera.lower(sch.mod).script()


def run_elementwise(lib, a_np):
    c = tessera.nd.empty(a_np.shape, "float32")
    lib(tessera.nd.array(a_np), c)
    np.testing.assert_allclose(c.numpy(), (a_np + 1.0) * 2.0, rtol=1e-6)


def test_split_factor_and_nparts():
    a, _, c = elementwise()
    s = te.create_schedule(c.op)
    xo, xi = s[c].split(c.op.axis[0], factor=16)
    s[c].split(c.op.axis[1], nparts=4)
    assert (xo.leaf, xi.leaf, c.op.axis[0] in s[c].te_axes) == (True, True, True)
    sch = tir_schedule([a, c])
    i, j = sch.get_loops(sch.get_block("C"))
    sch.split(i, [None, 16])
    sch.split(j, [4, None])
    assert_same(s, [a, c], sch)


def test_reorder_fuse_tile():
    a, _, c = elementwise()
    s = te.create_schedule(c.op)
    xo, yo, xi, yi = s[c].tile(c.op.axis[0], c.op.axis[1], 8, 8)
    fused = s[c].fuse(xo, yo)
    s[c].reorder(yi, xi)
    assert s[c].leaf_iter_vars == [fused, yi, xi]
    sch = tir_schedule([a, c])
    i, j = sch.get_loops(sch.get_block("C"))
    i0, i1 = sch.split(i, [None, 8])
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(i0, j0, i1, j1)
    sch.fuse(i0, j0)
    sch.reorder(j1, i1)
    assert_same(s, [a, c], sch)
    run_elementwise(tessera.build(s, [a, c], "llvm"), np.random.rand(64, 32).astype("float32"))


def test_compute_at_uses_the_stage_own_loops():
    a, b, c = elementwise()
    s = te.create_schedule(c.op)
    xo, _ = s[c].split(c.op.axis[0], factor=8)
    s[b].compute_at(s[c], xo)
    # After compute_at, s[b].op.axis are b's own loops (inside xo), as in TE.
    s[b].split(s[b].op.axis[1], factor=4)
    sch = tir_schedule([a, c])
    i, _ = sch.get_loops(sch.get_block("C"))
    i0, _ = sch.split(i, [None, 8])
    sch.compute_at(sch.get_block("B"), i0, True)
    sch.split(sch.get_loops(sch.get_block("B"))[-1], [None, 4])
    assert_same(s, [a, c], sch)
    run_elementwise(tessera.build(s, [a, c]), np.random.rand(64, 32).astype("float32"))


def test_compute_inline_and_set_scope():
    a, b, c = elementwise()
    s = te.create_schedule(c.op)
    s[b].compute_inline()
    sch = tir_schedule([a, c])
    sch.compute_inline(sch.get_block("B"))
    assert_same(s, [a, c], sch)
    s2 = te.create_schedule(c.op)
    s2[b].set_scope("local")
    sch2 = tir_schedule([a, c])
    sch2.set_scope(sch2.get_block("B"), 0, "local")
    assert_same(s2, [a, c], sch2)


def test_cache_read_and_compute_at():
    a, b, c = elementwise()
    s = te.create_schedule(c.op)
    aa = s.cache_read(a, "local", [b])
    xo, _ = s[c].split(c.op.axis[0], factor=16)
    s[b].compute_at(s[c], xo)
    s[aa].compute_at(s[b], s[b].op.axis[0])
    sch = tir_schedule([a, c])
    blk = sch.get_block("B")
    cache = sch.cache_read(blk, 0, "local", [blk])
    i0, _ = sch.split(sch.get_loops(sch.get_block("C"))[0], [None, 16])
    sch.compute_at(blk, i0, True)
    sch.compute_at(cache, sch.get_loops(blk)[-2], True)
    assert_same(s, [a, c], sch)
    run_elementwise(tessera.build(s, [a, c]), np.random.rand(64, 32).astype("float32"))


def test_cache_write_reduction_decomposed_like_te():
    a, b, c, k = matmul()
    s = te.create_schedule(c.op)
    cc = s.cache_write(c, "local")
    xo, xi = s[c].split(s[c].op.axis[0], factor=8)
    s[cc].compute_at(s[c], xo)
    ko, _ = s[cc].split(k, factor=4)  # the user's reduce axis now names the cache stage's
    s[cc].reorder(ko, s[cc].op.axis[0])
    sch = tir_schedule([a, b, c])
    comp = sch.get_block("C")
    copy = sch.cache_write(comp, 0, "local")
    i0, _ = sch.split(sch.get_loops(copy)[0], [None, 8])
    sch.compute_at(comp, i0, True)
    i, _, kk = sch.get_loops(comp)[-3:]
    k0, _ = sch.split(kk, [None, 4])
    sch.reorder(k0, i)
    sch.decompose_reduction(comp, k0)
    assert_same(s, [a, b, c], sch)
    lib = tessera.build(s, [a, b, c], "llvm")
    a_np, b_np = np.random.rand(32, 32).astype("float32"), np.random.rand(32, 32).astype("float32")
    c_nd = tessera.nd.empty((32, 32), "float32")
    lib(tessera.nd.array(a_np), tessera.nd.array(b_np), c_nd)
    np.testing.assert_allclose(c_nd.numpy(), a_np @ b_np, rtol=1e-4)


@pytest.mark.parametrize("kind", ["vectorize", "parallel", "unroll"])
def test_loop_annotations(kind):
    a, _, c = elementwise()
    s = te.create_schedule(c.op)
    getattr(s[c], kind)(c.op.axis[1 if kind == "vectorize" else 0])
    sch = tir_schedule([a, c])
    loops = sch.get_loops(sch.get_block("C"))
    getattr(sch, kind)(loops[1 if kind == "vectorize" else 0])
    assert_same(s, [a, c], sch)
    run_elementwise(tessera.build(s, [a, c]), np.random.rand(64, 32).astype("float32"))


def test_bind_and_pragma():
    a, _, c = elementwise()
    s = te.create_schedule(c.op)
    xo, _ = s[c].split(c.op.axis[0], factor=32)
    s[c].bind(xo, te.thread_axis("cthread"))
    s[c].pragma(c.op.axis[1], "dma_copy")
    sch = tir_schedule([a, c])
    i, j = sch.get_loops(sch.get_block("C"))
    i0, _ = sch.split(i, [None, 32])
    sch.bind(i0, "cthread")
    sch.annotate(j, "pragma_dma_copy", 1)
    assert tessera.lower(s, [a, c]).script() == tessera.lower(sch.mod).script()


def seed004_schedule(env):
    """Seed 004's TE graph and schedule (its tiling knobs written out)."""
    dshape=(1,16,14,14,1,16); kshape=(16,16,3,3,16,16); oshape=(1,16,14,14,1,16)
    dy = te.reduce_axis((0, 3), name="dy"); dx = te.reduce_axis((0, 3), name="dx")
    ic = te.reduce_axis((0, 16), name="ic"); ic_tns = te.reduce_axis((0, 16), name="ic_tns")
    data = te.placeholder(dshape, name="data", dtype="int8")
    kernel = te.placeholder(kshape, name="kernel", dtype="int8")
    data_buf = topi.nn.pad(data, [0, 0, 1, 1, 0, 0], name="data_buf")
    kernel_buf = te.compute(kshape, lambda *i: kernel(*i), "kernel_buf")
    res_conv = te.compute(oshape, lambda bo, co, i, j, bi, ci: te.sum(
        data_buf[bo, ic, i * 1 + dy, j * 1 + dx, bi, ic_tns].astype("int32")
        * kernel_buf[co, ic, dy, dx, ci, ic_tns].astype("int32"), axis=[ic, dy, dx, ic_tns]), name="res_conv")
    res_shr = te.compute(oshape, lambda *i: res_conv(*i) >> 8, name="res_shr")
    res_max = te.compute(oshape, lambda *i: te.max(res_shr(*i), 0), "res_max")
    res_min = te.compute(oshape, lambda *i: te.min(res_max(*i), 127), "res_min")
    res = te.compute(oshape, lambda *i: res_min(*i).astype("int8"), name="res")
    s = te.create_schedule(res.op)
    b, oc, y, x, b_tns, oc_tns = s[res].op.axis
    b_out, b_inn = s[res].split(b, factor=1)
    oc_out, oc_inn = s[res].split(oc, factor=8)
    y_out, y_inn = s[res].split(y, factor=7)
    x_out, x_inn = s[res].split(x, factor=14)
    s[res].reorder(b_out, oc_out, y_out, x_out, b_inn, oc_inn, y_inn, x_inn, b_tns, oc_tns)
    for t in (res_conv, res_shr, res_max, res_min):
        s[t].compute_at(s[res], x_out)
    b_inn, oc_inn, y_inn, x_inn, b_tns, oc_tns = s[res_conv].op.axis
    ic_out, ic_inn = s[res_conv].split(ic, factor=1)
    s[res_conv].reorder(ic_out, b_inn, oc_inn, y_inn, ic_inn, dy, dx, x_inn, b_tns, oc_tns, ic_tns)
    _, tx = s[res].split(oc_out, factor=2)
    s[res].reorder(tx, b_out)
    s[res].bind(tx, te.thread_axis("cthread"))
    s[data_buf].set_scope(env.inp_scope); s[kernel_buf].set_scope(env.wgt_scope)
    for t in (res_conv, res_shr, res_min, res_max):
        s[t].set_scope(env.acc_scope)
    s[data_buf].compute_at(s[res_conv], ic_out); s[kernel_buf].compute_at(s[res_conv], ic_out)
    s[data_buf].pragma(s[data_buf].op.axis[0], env.dma_copy)
    s[kernel_buf].pragma(s[kernel_buf].op.axis[0], env.dma_copy)
    s[res].pragma(s[res].op.axis[4], env.dma_copy)
    s[res_conv].tensorize(b_tns, env.gemm)
    for t in (res_shr, res_min, res_max):
        s[t].pragma(s[t].op.axis[0], env.alu)
    return s, [data, kernel, res]


def test_seed004_schedule_matches_the_cpp_schedule():
    """Seed 004's TE schedule through the facade lowers under vta.build_config() to exactly what
    vta.topi.schedule_conv2d_packed (the C++ transcription of the seed) lowers to."""
    env = vta.get_env()
    s, args = seed004_schedule(env)
    sch = tir.Schedule(vta.topi.conv2d_packed_func())
    vta.topi.schedule_conv2d_packed(sch)
    expected = vta.lower(sch.mod).script()
    assert "VTAPushGEMMOp" in expected
    assert vta.lower(s, args, simple_mode=True).script() == expected


# --- misuse ------------------------------------------------------------------------------------

def te_error(fn, *args, **kwargs):
    with pytest.raises(tessera.DiagnosticError) as info:
        fn(*args, **kwargs)
    assert info.value.code == "te_schedule"
    return str(info.value)


def test_unknown_axis():
    _, b, c = elementwise()
    s = te.create_schedule(c.op)
    assert "belongs to stage B" in te_error(s[c].split, s[b].op.axis[0], factor=2)
    k = te.reduce_axis((0, 4), name="k")
    assert "not an axis of stage C" in te_error(s[c].split, k, factor=2)
    assert "expected an axis" in te_error(s[c].vectorize, 3)


def test_split_of_a_split_axis():
    _, _, c = elementwise()
    s = te.create_schedule(c.op)
    s[c].split(c.op.axis[0], factor=2)
    assert "not a loop any more" in te_error(s[c].split, c.op.axis[0], factor=2)
    assert "exactly one" in te_error(s[c].split, c.op.axis[1])


def test_compute_at_to_a_non_consumer():
    a, b, c = elementwise()
    s = te.create_schedule(c.op)
    assert "does not consume C" in te_error(s[c].compute_at, s[b], s[b].op.axis[0])
    assert "placeholder" in te_error(s[a].compute_at, s[c], c.op.axis[0])
    assert "output" in te_error(s[c].compute_inline)


def test_unsupported_primitives():
    a, b, c = elementwise()
    s = te.create_schedule(c.op)
    assert "double_buffer" in te_error(s[b].double_buffer)
    assert "rfactor" in te_error(s.rfactor, c, c.op.axis[0])
    assert "decl_tensor_intrin" in te_error(te.decl_tensor_intrin, None, None)
    assert "tensorize" in te_error(s[c].tensorize, c.op.axis[1], object())
    assert "not an operation of this schedule" in te_error(s.__getitem__,
                                                           te.placeholder((2,), name="Z"))
    with pytest.raises(TypeError):
        tessera.lower(s)
    assert "fuse" in te_error(s[c].fuse, c.op.axis[1], c.op.axis[0])
    del a


def test_failed_tir_step_names_the_te_call():
    a, b, c = elementwise()
    d = te.compute((64, 32), lambda i, j: b[i, j] - 1.0, name="D")
    s = te.create_schedule([c.op, d.op])
    xo, _ = s[c].split(c.op.axis[0], factor=8)
    s[b].compute_at(s[c], xo)  # D reads B outside C's loop: TensorIR refuses
    with pytest.raises(tessera.DiagnosticError) as info:
        tessera.lower(s, [a, c, d])
    assert "s[B].compute_at(s[C]" in str(info.value)


def test_user_guide_matmul_example():
    """docs/user/python.md's example (at 128 instead of 1024), built and run."""
    n = 128
    a = te.placeholder((n, n), name="A")
    b = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    c = te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    s = te.create_schedule(c.op)
    cc = s.cache_write(c, "local")
    io, jo, _, _ = s[c].tile(c.op.axis[0], c.op.axis[1], 32, 32)
    s[cc].compute_at(s[c], jo)
    ko, ki = s[cc].split(k, factor=4)
    s[cc].reorder(ko, ki, *s[cc].op.axis)
    s[cc].vectorize(s[cc].op.axis[1])
    s[c].parallel(io)
    assert "C_local" in tessera.lower(s, [a, b, c], simple_mode=True).script()
    f = tessera.build(s, [a, b, c], "llvm")
    a_np, b_np = np.random.rand(n, n).astype("float32"), np.random.rand(n, n).astype("float32")
    c_nd = tessera.nd.empty((n, n), "float32")
    f(tessera.nd.array(a_np), tessera.nd.array(b_np), c_nd)
    np.testing.assert_allclose(c_nd.numpy(), a_np @ b_np, rtol=1e-4)


def test_tvm_opt_gemm_tutorial_schedule():
    """TVM's "How to optimize GEMM on CPU" final schedule (array packing, cache_write, tile,
    compute_at, split of the reduction, vectorize, unroll, parallel), at 128, built and run."""
    n, bn, kfactor = 128, 32, 4
    k = te.reduce_axis((0, n), "k")
    a = te.placeholder((n, n), name="A")
    b = te.placeholder((n, n), name="B")
    packed_b = te.compute((n // bn, n, bn), lambda x, y, z: b[y, x * bn + z], name="packedB")
    c = te.compute((n, n), lambda x, y: te.sum(
        a[x, k] * packed_b[tir.indexdiv(y, bn), k, tir.indexmod(y, bn)], axis=k), name="C")
    s = te.create_schedule(c.op)
    cc = s.cache_write(c, "global")
    mo, no, _, _ = s[c].tile(c.op.axis[0], c.op.axis[1], bn, bn)
    s[cc].compute_at(s[c], no)
    mc, nc = s[cc].op.axis
    (kaxis,) = s[cc].op.reduce_axis
    ko, ki = s[cc].split(kaxis, factor=kfactor)
    s[cc].reorder(ko, mc, ki, nc)
    s[cc].vectorize(nc)
    s[cc].unroll(ki)
    x, _, z = s[packed_b].op.axis
    s[packed_b].vectorize(z)
    s[packed_b].parallel(x)
    s[c].parallel(mo)
    func = tessera.build(s, [a, b, c], target="llvm", name="mmult")
    assert func.entry_name == "mmult"
    a_np, b_np = np.random.rand(n, n).astype("float32"), np.random.rand(n, n).astype("float32")
    c_nd = tessera.nd.empty((n, n), "float32")
    func(tessera.nd.array(a_np), tessera.nd.array(b_np), c_nd)
    np.testing.assert_allclose(c_nd.numpy(), a_np @ b_np, rtol=1e-4)
    assert func.time_evaluator(func.entry_name, tessera.cpu(), number=2)(
        tessera.nd.array(a_np), tessera.nd.array(b_np), c_nd).mean > 0


def test_bad_arguments_raise():
    a, b, c = elementwise()
    assert "expected te operations" in te_error(te.create_schedule, 42)
    s = te.create_schedule(c.op)
    assert "thread_axis" in te_error(s[c].bind, c.op.axis[0], "threadIdx.x")
    assert "thread tag" in te_error(te.thread_axis)
    assert "lower: the arguments" in te_error(tessera.lower, s, [a, 1])
    s[c].tensorize(c.op.axis[1], "no.such.intrinsic")
    with pytest.raises(tessera.DiagnosticError) as info:
        tessera.lower(s, [a, c])
    assert "tensorize" in str(info.value)
    assert "was inlined" in te_error(_inlined_then_split, b, c)


def _inlined_then_split(b, c):
    s = te.create_schedule(c.op)
    s[b].compute_inline()
    s[b].split(b.op.axis[0], factor=2)
