"""tessera.transform.PassContext as a `with` scope over the C++ PassContext: nesting, current(),
the opt level and disabled passes deciding what a Sequential runs, config checks."""
import unittest

import numpy as np

import tessera
from tessera import relay
from tessera.transform import PassContext


def scaled_conv_module():
    x = relay.var("x", shape=(1, 4, 8, 8))
    w = relay.const(np.ones((4, 4, 3, 3), "float32"))
    body = relay.multiply(relay.nn.conv2d(x, w, padding=(1, 1), channels=4, kernel_size=(3, 3)),
                          relay.const(np.full((4, 1, 1), 2.0, "float32")))
    return tessera.IRModule.from_expr(relay.Function([x], relay.nn.relu(body)))


class PassContextTest(unittest.TestCase):
    def test_nesting_and_current(self):
        self.assertEqual(PassContext.current().opt_level, 2)
        with PassContext(opt_level=3) as outer:
            self.assertIs(PassContext.current(), outer)
            with PassContext(opt_level=1, disabled_pass=["FoldConstant"]) as inner:
                self.assertIs(PassContext.current(), inner)
                self.assertEqual(PassContext.current().opt_level, 1)
                self.assertEqual(inner.disabled_pass, {"FoldConstant"})
            self.assertIs(PassContext.current(), outer)
        self.assertEqual(PassContext.current().opt_level, 2)

    def test_exit_on_exception(self):
        with self.assertRaises(ValueError):
            with PassContext(opt_level=0):
                raise ValueError()
        self.assertEqual(PassContext.current().opt_level, 2)

    def test_opt_level_and_disabled_pass_gate_sequential(self):
        mod = relay.transform.InferType()(scaled_conv_module())
        # FoldConstant (level 2) folds the scaled weights once BackwardFoldScaleAxis (level 3)
        # has moved the scale onto them.
        seq = tessera.transform.Sequential([relay.transform.BackwardFoldScaleAxis(),
                                            relay.transform.FoldConstant()])
        with PassContext(opt_level=2):  # BackwardFoldScaleAxis is a level-3 pass
            self.assertIn("multiply", str(seq(mod)))
        with PassContext(opt_level=3):
            self.assertNotIn("multiply", str(seq(mod)))
        with PassContext(opt_level=3, disabled_pass=["BackwardFoldScaleAxis"]):
            self.assertIn("multiply", str(seq(mod)))
        with PassContext(opt_level=2, required_pass=["BackwardFoldScaleAxis"]):
            self.assertNotIn("multiply", str(seq(mod)))

    def test_config(self):
        ctx = PassContext(config={"tir.disable_vectorize": True})
        self.assertEqual(ctx.config["tir.disable_vectorize"], True)
        self.assertIn("tir.disable_vectorize", PassContext.list_configs())
        with self.assertRaises(tessera.DiagnosticError) as raised:
            PassContext(config={"no.such.key": 1})
        self.assertEqual(raised.exception.code, "pass_config")

    def test_build_uses_the_context(self):
        mod = scaled_conv_module()
        with PassContext(opt_level=3, config={"tir.disable_vectorize": True}):
            lib = relay.build(mod, "llvm")
        self.assertTrue(lib.get_graph_json())


if __name__ == "__main__":
    unittest.main()
