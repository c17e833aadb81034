"""tessera.register_func: Python functions called by name from C++ (the packed-function
registry), with the GIL released by the C++ caller and taken back for the callback."""
import threading
import unittest

import numpy as np

import tessera


class RegisterFuncTest(unittest.TestCase):
    def tearDown(self):
        for name in ("test.scale", "test.fail", "test.linear", "test.twice"):
            tessera.remove_global_func(name)

    def test_decorator_and_call_forms(self):
        @tessera.register_func("test.scale")
        def scale(x, factor):
            return x.numpy() * factor

        tessera.register_func("test.twice", lambda s: s + s)
        self.assertIn("test.scale", tessera.list_global_func_names())
        # The call goes through C++ (PackedFunc), which releases the GIL and calls back.
        out = tessera.get_global_func("test.scale")(tessera.nd.array(np.ones(3, "float32")), 2.0)
        np.testing.assert_array_equal(out.numpy(), [2, 2, 2])
        self.assertEqual(tessera.get_global_func("test.twice")("ab"), "abab")
        self.assertIsNone(tessera.get_global_func("test.none", allow_missing=True))

    def test_override(self):
        tessera.register_func("test.twice", lambda s: s)
        with self.assertRaises(tessera.DiagnosticError) as raised:
            tessera.register_func("test.twice", lambda s: s)
        self.assertEqual(raised.exception.code, "packed_func_exists")
        tessera.register_func("test.twice", lambda s: s * 2, override=True)
        self.assertEqual(tessera.get_global_func("test.twice")(21), 42)

    def test_python_exception_propagates(self):
        @tessera.register_func("test.fail")
        def fail():
            raise KeyError("from the callback")

        with self.assertRaises(KeyError):
            tessera.get_global_func("test.fail")()

    def test_destination_passing_from_threads(self):
        # seed 002's env.linear style: the result is written into the last argument.
        @tessera.register_func("test.linear", override=True)
        def linear(x, w, out):
            out.copyfrom(x.numpy() @ w.numpy().T)

        fn = tessera.get_global_func("test.linear")
        errors = []

        def worker(seed):
            try:
                rng = np.random.default_rng(seed)
                x = rng.standard_normal((4, 8)).astype("float32")
                w = rng.standard_normal((5, 8)).astype("float32")
                out = tessera.nd.empty((4, 5))
                for _ in range(20):
                    fn(tessera.nd.array(x), tessera.nd.array(w), out)
                np.testing.assert_allclose(out.numpy(), x @ w.T, rtol=1e-5)
            except Exception as e:  # reported by the main thread
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        self.assertEqual(errors, [])
        self.assertFalse(any(t.is_alive() for t in threads))


if __name__ == "__main__":
    unittest.main()
