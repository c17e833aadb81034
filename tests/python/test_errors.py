"""Tessera's errors from Python: DiagnosticError with .code, .span and the message for
user-reachable problems, InternalError for failed checks, and the interpreter survives both."""
import unittest

import numpy as np

import tessera
from tessera import relay


class ErrorTest(unittest.TestCase):
    def test_parse_error_is_located(self):
        text = "def @main(%x: Tensor[(2), float32]) {\n  add(%x, %x\n}\n"
        with self.assertRaises(tessera.DiagnosticError) as raised:
            tessera.parser.parse(text, source_name="bad.relay")
        e = raised.exception
        self.assertEqual(e.code, "parse")
        self.assertEqual(e.span.source, "bad.relay")
        self.assertEqual(e.span.line, 3)
        self.assertGreaterEqual(e.span.column, 1)
        self.assertIn("bad.relay:3:", str(e))
        self.assertTrue(e.message)
        self.assertIsInstance(e, tessera.error.TesseraError)

    def test_type_error_names_the_op(self):
        x = relay.var("x", shape=(1, 3, 8, 8))
        w = relay.var("w", shape=(4, 5, 3, 3))  # 5 input channels for 3
        mod = tessera.IRModule.from_expr(relay.nn.conv2d(x, w, channels=4, kernel_size=(3, 3)))
        with self.assertRaises(tessera.DiagnosticError) as raised:
            relay.transform.InferType()(mod)
        self.assertIn("conv2d", str(raised.exception))
        self.assertTrue(raised.exception.code)

    def test_unknown_op_and_attribute(self):
        with self.assertRaises(tessera.DiagnosticError) as raised:
            relay.op.get("no_such_op")
        self.assertEqual(raised.exception.code, "unknown_op")
        with self.assertRaises(tessera.DiagnosticError) as raised:
            relay.nn.relu(relay.var("x", shape=(2,)), no_such_attr=1)
        self.assertEqual(raised.exception.code, "attrs")
        self.assertIsNone(raised.exception.span)
        self.assertEqual(raised.exception.context, "nn.relu")

    def test_wrong_python_types(self):
        with self.assertRaises(TypeError):
            relay.nn.conv2d(relay.var("x"))  # missing weight
        with self.assertRaises(TypeError):
            relay.Function([1], relay.var("x"))
        with self.assertRaises(tessera.DiagnosticError):
            relay.var("x", shape=(2,), dtype="float77")

    def test_run_with_wrong_input(self):
        x = relay.var("x", shape=(2,))
        run = relay.create_executor("debug", mod=tessera.IRModule.from_expr(x + x)).evaluate()
        with self.assertRaises(tessera.DiagnosticError):
            run(np.zeros(3, "float32"))

    def test_internal_error(self):
        with self.assertRaises(tessera.InternalError) as raised:
            tessera._core._fail_check("a broken invariant")
        self.assertIn("a broken invariant", str(raised.exception))
        self.assertEqual(raised.exception.code, "internal")


if __name__ == "__main__":
    unittest.main()
