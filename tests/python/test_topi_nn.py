"""tessera.topi's neural-network operators (pytest): conv2d, pooling, batch norm, bias_add, pad,
flatten and reductions made into PrimFuncs with te.create_prim_func, built, and checked against
NumPy; attribute lists of the wrong length or kind raising DiagnosticError (code "topi")."""
import numpy as np
import pytest

import tessera
from tessera import te, topi


def run(inputs, fcompute):
    """fcompute on placeholders for the NumPy ``inputs``, built and run; the output array."""
    placeholders = [te.placeholder(x.shape, name=f"x{i}") for i, x in enumerate(inputs)]
    out = fcompute(*placeholders)
    lib = tessera.build(te.create_prim_func(placeholders + [out]), target="llvm")
    result = tessera.nd.empty([int(d) for d in out.shape], out.dtype)
    lib["main"](*[tessera.nd.array(x) for x in inputs], result)
    return result.numpy()


def conv2d_ref(x, w, stride, pad, groups=1):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow), "float64")
    per = o // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
                out[:, g * per:(g + 1) * per] += np.einsum(
                    "nchw,oc->nohw", patch, w[g * per:(g + 1) * per, :, i, j])
    return out


RNG = np.random.default_rng(0)
X = RNG.standard_normal((1, 4, 9, 9)).astype("float32")


def test_conv2d_and_grouped():
    w = RNG.standard_normal((6, 4, 3, 3)).astype("float32")
    got = run([X, w], lambda x, k: topi.nn.conv2d_nchw(x, k, 2, 1, 1))
    np.testing.assert_allclose(got, conv2d_ref(X, w, 2, 1), rtol=1e-4, atol=1e-4)
    wg = RNG.standard_normal((4, 2, 3, 3)).astype("float32")
    got = run([X, wg], lambda x, k: topi.nn.group_conv2d_nchw(x, k, (1, 1), (1, 1, 1, 1),
                                                              (1, 1), 2))
    np.testing.assert_allclose(got, conv2d_ref(X, wg, 1, 1, groups=2), rtol=1e-4, atol=1e-4)


def test_pooling():
    got = run([X], lambda x: topi.nn.pool2d(x, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max"))
    padded = np.pad(X, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    want = np.stack([np.stack([padded[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].max(axis=(2, 3))
                               for j in range(5)], -1) for i in range(5)], -2)
    np.testing.assert_allclose(got, want)
    got = run([X], lambda x: topi.nn.adaptive_pool(x, (1, 1), "avg"))
    np.testing.assert_allclose(got, X.mean(axis=(2, 3), keepdims=True), rtol=1e-5, atol=1e-6)
    got = run([X], lambda x: topi.nn.global_pool(x, "max"))
    np.testing.assert_allclose(got, X.max(axis=(2, 3), keepdims=True))


def test_batch_norm_bias_pad_flatten_reduce():
    g, b, m = (RNG.standard_normal(4).astype("float32") for _ in range(3))
    v = RNG.uniform(0.5, 1.5, 4).astype("float32")
    got = run([X, g, b, m, v], lambda x, *p: topi.nn.batch_norm(x, *p, epsilon=1e-3))
    c = lambda a: a.reshape(1, -1, 1, 1)  # noqa: E731
    np.testing.assert_allclose(got, (X - c(m)) / np.sqrt(c(v) + 1e-3) * c(g) + c(b),
                               rtol=1e-4, atol=1e-5)
    got = run([X, b], lambda x, bias: topi.nn.bias_add(x, bias))
    np.testing.assert_allclose(got, X + c(b))
    got = run([X], lambda x: topi.nn.pad(x, (0, 0, 1, 2), (0, 0, 0, 1), 5.0))
    np.testing.assert_allclose(got, np.pad(X, ((0, 0), (0, 0), (1, 0), (2, 1)),
                                           constant_values=5.0))
    got = run([X], topi.nn.flatten)
    np.testing.assert_allclose(got, X.reshape(1, -1))
    got = run([X], lambda x: topi.sum(x, axis=(1, 3), keepdims=True))
    np.testing.assert_allclose(got, X.sum(axis=(1, 3), keepdims=True), rtol=1e-5, atol=1e-5)
    got = run([X], lambda x: topi.clip(topi.exp(x), 0.5, 2.0))
    np.testing.assert_allclose(got, np.clip(np.exp(X), 0.5, 2.0), rtol=1e-5)


def test_bad_attributes():
    x = te.placeholder((1, 4, 9, 9), name="x")
    w = te.placeholder((6, 4, 3, 3), name="w")
    cases = [
        (lambda: topi.nn.conv2d_nchw(x, w, 1, (1, 1, 1), 1), "padding: expected 1, 2 or 4"),
        (lambda: topi.nn.conv2d_nchw(x, w, (1, 1, 1), 1, 1), "strides: expected 1 or 2"),
        (lambda: topi.nn.conv2d_nchw(x, w, 1, "same", 1), "padding: expected an int"),
        (lambda: topi.nn.pool2d(x, 2, 2, 1, 0, "min"), "pool_type must be 'max' or 'avg'"),
        (lambda: topi.nn.global_pool(x, "sum"), "pool_type must be 'max' or 'avg'"),
        (lambda: topi.nn.adaptive_pool(x, 1, "max"), "only 'avg'"),
        (lambda: topi.sum(x, axis=7), None),
    ]
    for make, needle in cases:
        with pytest.raises(tessera.DiagnosticError) as raised:
            make()
        if needle:
            assert raised.value.code == "topi" and needle in str(raised.value)
