"""numba.cuda.testing of swapcheck's stand-in: what an emitted regression
test imports (numba-cuda's CUDATestCase and skip_unless_cudasim)."""
import unittest


class CUDATestCase(unittest.TestCase):
    pass


def skip_unless_cudasim(reason):
    return lambda obj: obj
