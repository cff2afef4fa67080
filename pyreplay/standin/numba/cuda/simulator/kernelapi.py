"""The kernel API of swapcheck's stand-in simulator (numba-cuda's
numba_cuda/numba/cuda/simulator/kernelapi.py, the parts a scenario uses,
without numpy): the fake module a launch swaps in, its shared arrays and
atomics (FakeCUDAShared.array and FakeCUDAAtomic as numba-cuda's HEAD has
them, line for line: a replay anchors on their lines' text), and the swap
itself, which is the variant's rendition, imported from its own module
(pyreplay names it when it writes the stand-in)."""
import sys
import threading
import traceback


class _Array(list):
    """A one-dimensional int64 array, as a list: indexed by an int or a
    1-tuple (compare_and_swap's (0,) * array.ndim)."""
    ndim = 1

    def __getitem__(self, i):
        return list.__getitem__(self, i[0] if isinstance(i, tuple) else i)

    def __setitem__(self, i, v):
        list.__setitem__(self, i[0] if isinstance(i, tuple) else i, v)


class np:
    """What FakeCUDAShared and FakeCUDAAtomic use of numpy, and what the
    replay's host program allocates its arrays with, on lists."""
    int64 = "int64"

    @staticmethod
    def zeros(shape, dtype):
        return _Array([0] * shape)

    @staticmethod
    def empty(shape, dtype):
        return _Array([0] * shape)

    @staticmethod
    def nanmax(values):
        return max(values)

    @staticmethod
    def nanmin(values):
        return min(values)


class Dim3(object):
    def __init__(self, x, y, z):
        self.x = x
        self.y = y
        self.z = z

    def __repr__(self):
        return "Dim3(%s, %s, %s)" % (self.x, self.y, self.z)

    def __iter__(self):
        yield self.x
        yield self.y
        yield self.z


class FakeCUDALocal(object):
    def array(self, shape, dtype):
        return [0] * shape


class FakeCUDAShared(object):
    def __init__(self, dynshared_size):
        self._allocations = {}
        self._dynshared_size = dynshared_size

    def array(self, shape, dtype):
        # Dynamic shared memory is requested with size 0 - this all shares the
        # same underlying memory (here, one of as many elements as fit: the
        # stand-in's types are names, int32 and float32 of 4 bytes)
        if shape == 0:
            return [0] * (self._dynshared_size // (8 if dtype.endswith("64") else 4))

        # Otherwise, identify allocations by source file and line number
        # We pass the reference frame explicitly to work around
        # http://bugs.python.org/issue25108
        stack = traceback.extract_stack(sys._getframe())
        caller = stack[-2][0:2]
        res = self._allocations.get(caller)
        if res is None:
            res = np.empty(shape, dtype)
            self._allocations[caller] = res
        return res


class FakeCUDAConst(object):
    def array_like(self, ary):
        return ary


addlock = threading.Lock()
sublock = threading.Lock()
andlock = threading.Lock()
orlock = threading.Lock()
xorlock = threading.Lock()
maxlock = threading.Lock()
minlock = threading.Lock()
compare_and_swaplock = threading.Lock()
caslock = threading.Lock()
inclock = threading.Lock()
declock = threading.Lock()
exchlock = threading.Lock()


class FakeCUDAAtomic:
    def add(self, array, index, val):
        with addlock:
            old = array[index]
            array[index] += val
        return old

    def sub(self, array, index, val):
        with sublock:
            old = array[index]
            array[index] -= val
        return old

    def and_(self, array, index, val):
        with andlock:
            old = array[index]
            array[index] &= val
        return old

    def or_(self, array, index, val):
        with orlock:
            old = array[index]
            array[index] |= val
        return old

    def xor(self, array, index, val):
        with xorlock:
            old = array[index]
            array[index] ^= val
        return old

    def inc(self, array, index, val):
        with inclock:
            old = array[index]
            if old >= val:
                array[index] = 0
            else:
                array[index] += 1
        return old

    def dec(self, array, index, val):
        with declock:
            old = array[index]
            if (old == 0) or (old > val):
                array[index] = val
            else:
                array[index] -= 1
        return old

    def exch(self, array, index, val):
        with exchlock:
            old = array[index]
            array[index] = val
        return old

    def max(self, array, index, val):
        with maxlock:
            old = array[index]
            array[index] = max(old, val)
        return old

    def min(self, array, index, val):
        with minlock:
            old = array[index]
            array[index] = min(old, val)
        return old

    def nanmax(self, array, index, val):
        with maxlock:
            old = array[index]
            array[index] = np.nanmax([array[index], val])
        return old

    def nanmin(self, array, index, val):
        with minlock:
            old = array[index]
            array[index] = np.nanmin([array[index], val])
        return old

    def compare_and_swap(self, array, old, val):
        with compare_and_swaplock:
            index = (0,) * array.ndim
            loaded = array[index]
            if loaded == old:
                array[index] = val
            return loaded

    def cas(self, array, index, old, val):
        with caslock:
            loaded = array[index]
            if loaded == old:
                array[index] = val
            return loaded


class FakeCUDAModule(object):
    """The kernel API a launch's code sees: one per launch."""

    def __init__(self, grid_dim, block_dim, dynshared_size):
        self.gridDim = Dim3(*grid_dim)
        self.blockDim = Dim3(*block_dim)
        self._local = FakeCUDALocal()
        self._shared = FakeCUDAShared(dynshared_size)
        self._const = FakeCUDAConst()
        self._atomic = FakeCUDAAtomic()

    @property
    def local(self):
        return self._local

    @property
    def shared(self):
        return self._shared

    @property
    def const(self):
        return self._const

    @property
    def atomic(self):
        return self._atomic

    @property
    def threadIdx(self):
        return threading.current_thread().threadIdx

    @property
    def blockIdx(self):
        return threading.current_thread().blockIdx

    @property
    def warpsize(self):
        return 32

    @property
    def laneid(self):
        return threading.current_thread().thread_id % 32

    def syncthreads(self):
        threading.current_thread().syncthreads()

    def threadfence(self):
        pass

    def threadfence_block(self):
        pass

    def grid(self, n):
        return self.blockIdx.x * self.blockDim.x + self.threadIdx.x

    def gridsize(self, n):
        return self.blockDim.x * self.gridDim.x


from .swap_variant import swapped_cuda_module  # noqa: E402 (pyreplay names the variant's module)
