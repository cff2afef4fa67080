"""swapcheck's stand-in for numba (pyreplay, --target rendition).

Just what the CUDA simulator's swap and launch need, in plain Python with
no numpy, so that a replay runs on any CPython (the types a kernel passes
to cuda.local.array are names here). numba.cuda is the "real" module the
swap replaces: it has jit, and none of the kernel API (no local,
threadIdx, ...), as numba.cuda has none under NUMBA_ENABLE_CUDASIM=1.
"""
int32 = "int32"
int64 = "int64"
float32 = "float32"
float64 = "float64"
__version__ = "stand-in"
