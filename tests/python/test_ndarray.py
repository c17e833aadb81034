"""tessera.nd: copies to and from NumPy, and DLPack both ways with NumPy and PyTorch, sharing
memory where it is claimed (aligned data) and copying where it is not."""
import unittest

import numpy as np

import tessera


def address(array):
    return array.__array_interface__["data"][0]


class NDArrayTest(unittest.TestCase):
    def test_numpy_round_trip(self):
        for dtype in ("float32", "float64", "int8", "int32", "int64", "uint8", "bool", "float16"):
            x = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
            nd = tessera.nd.array(x)
            self.assertEqual(nd.shape, (3, 4))
            self.assertEqual(nd.dtype, dtype)
            np.testing.assert_array_equal(nd.numpy(), x)
        self.assertEqual(tessera.nd.array(np.float32(2.5)).shape, ())

    def test_array_copies(self):
        x = np.ones(4, "float32")
        nd = tessera.nd.array(x)
        x[0] = 5
        self.assertEqual(nd.numpy()[0], 1)  # tvm.nd.array copies
        self.assertEqual(nd._data_address % 64, 0)
        self.assertEqual(nd.device, tessera.cpu(0))
        self.assertEqual(tessera.device("cpu"), tessera.cpu(0))

    def test_numpy_views_tessera_memory(self):
        nd = tessera.nd.empty((256,), "float32")
        view = np.from_dlpack(nd)  # NumPy 1.24 marks DLPack imports read-only
        self.assertEqual(address(view), nd._data_address)
        nd.copyfrom(np.arange(256, dtype="float32"))
        self.assertEqual(view[3], 3)

    def test_from_dlpack_numpy_shares_aligned_copies_unaligned(self):
        block = np.zeros(64 + 16, "float32")  # a 64-byte aligned window of a NumPy allocation
        offset = (-address(block) % 64) // 4
        aligned = block[offset:offset + 64]
        nd = tessera.nd.from_dlpack(aligned)
        self.assertEqual(nd._data_address, address(aligned))
        aligned[0] = 3
        self.assertEqual(nd.numpy()[0], 3)
        unaligned = aligned[1:]  # 4 bytes past a 64-byte boundary
        nd = tessera.nd.from_dlpack(unaligned)
        self.assertNotEqual(nd._data_address, address(unaligned))
        self.assertEqual(nd._data_address % 64, 0)
        np.testing.assert_array_equal(nd.numpy(), unaligned)

    def test_capsule_consumed_once(self):
        capsule = tessera.nd.array(np.ones(3, "float32")).__dlpack__()
        tessera.nd.from_dlpack(capsule)
        with self.assertRaises(tessera.DiagnosticError) as raised:
            tessera.nd.from_dlpack(capsule)
        self.assertEqual(raised.exception.code, "dlpack")

    def test_torch_both_ways(self):
        try:
            import torch
        except ImportError:
            self.skipTest("python3-torch is not installed")
        nd = tessera.nd.array(np.arange(6, dtype="float32").reshape(2, 3))
        t = torch.from_dlpack(nd)
        self.assertEqual(t.data_ptr(), nd._data_address)  # zero-copy
        t[0, 0] = 42
        self.assertEqual(nd.numpy()[0, 0], 42)
        del nd
        self.assertEqual(float(t[0, 0]), 42)  # the tensor keeps the memory alive

        source = torch.arange(256, dtype=torch.float32)  # PyTorch's CPU allocator aligns to 64
        back = tessera.nd.from_dlpack(source)
        self.assertEqual(back._data_address, source.data_ptr())
        source[1] = -1
        self.assertEqual(back.numpy()[1], -1)
        self.assertEqual(tessera.nd.from_dlpack(torch.zeros(2, 2, dtype=torch.int8)).dtype,
                         "int8")

    def test_bad_input(self):
        with self.assertRaises(tessera.DiagnosticError) as raised:
            tessera.nd.from_dlpack(object())
        self.assertEqual(raised.exception.code, "dlpack")
        with self.assertRaises(tessera.DiagnosticError):
            tessera.nd.array(np.zeros(2, "complex64"))
        nd = tessera.nd.array(np.zeros(2, "float32"))
        with self.assertRaises(tessera.DiagnosticError) as raised:
            nd.copyfrom(np.zeros(3, "float32"))
        self.assertEqual(raised.exception.code, "copyfrom")


if __name__ == "__main__":
    unittest.main()
