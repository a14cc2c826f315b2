"""A generator seeded in C: `random.Random(x)` for a 64-bit seed, the same numbers, a third
cheaper to make.

Why. Every game makes a generator for its dice and shuffles and one for each random seat, and
seeding a Mersenne Twister is about 1,900 dependent multiplications: three of them were a tenth
of a Siatka game (docs/performance.md, session 18). Python's seeding first fills the table from
the constant 19650218 (624 of those multiplications, the same every time) and then mixes the
seed in; here the first part is done once per process and copied.

How. `random.Random(x)` for an int x of 0..2**64-1 takes x as its one or two 32-bit words, low
first (one word when x is below 2**32, zero included), and runs MT19937's `init_by_array`
(Matsumoto and Nishimura's reference, 2002) over them; the C below does the same. It writes the
generator's table where CPython keeps it, just after the object's header and its `index`: a
layout CPython does not promise. So the seeded form is used only where it was checked, once per
process and before it is used (`usable`): the object is exactly as large as the layout says, and
generators seeded both ways draw the same numbers for seeds at every edge of the key's length.
Anywhere else vbr seeds as Python does (rng.generator).
"""
from __future__ import annotations

import _random
import random

MODULE = "vbr_mt"  # the .pxd the seeds module cimports
IMPORT = f"from cython.cimports.{MODULE} import vbr_mt_seed, vbr_mt_size"

PXD = '''\
cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #define VBR_MT_N 624
    typedef struct {
        PyObject_HEAD
        int index;
        uint32_t state[VBR_MT_N];
    } vbr_mt_object;

    static uint32_t vbr_mt_start[VBR_MT_N];  /* the table filled from 19650218, made once */
    static int vbr_mt_ready = 0;

    static void vbr_mt_prepare(void) {
        uint32_t x = 19650218U;
        int i;
        vbr_mt_start[0] = x;
        for (i = 1; i < VBR_MT_N; i++) {
            x = 1812433253U * (x ^ (x >> 30)) + (uint32_t)i;
            vbr_mt_start[i] = x;
        }
        vbr_mt_ready = 1;
    }

    /* MT19937's init_by_array over the seed's 32-bit words, low first: one word below 2**32 */
    static void vbr_mt_seed(PyObject *r, unsigned long long seed) {
        uint32_t key[2], *mt = ((vbr_mt_object *)r)->state;
        size_t words, i = 1, j = 0, k;
        if (!vbr_mt_ready)
            vbr_mt_prepare();
        key[0] = (uint32_t)seed;
        key[1] = (uint32_t)(seed >> 32);
        words = key[1] ? 2 : 1;
        memcpy(mt, vbr_mt_start, sizeof vbr_mt_start);
        for (k = VBR_MT_N; k; k--) {  /* the table is longer than the key */
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
            i++;
            j++;
            if (i >= VBR_MT_N) {
                mt[0] = mt[VBR_MT_N - 1];
                i = 1;
            }
            if (j >= words)
                j = 0;
        }
        for (k = VBR_MT_N - 1; k; k--) {
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
            i++;
            if (i >= VBR_MT_N) {
                mt[0] = mt[VBR_MT_N - 1];
                i = 1;
            }
        }
        mt[0] = 0x80000000U;
        ((vbr_mt_object *)r)->index = VBR_MT_N;  /* the first draw makes the next 624 words */
    }

    static Py_ssize_t vbr_mt_size(void) {
        return (Py_ssize_t)sizeof(vbr_mt_object);
    }
    """
    void vbr_mt_seed(object r, unsigned long long seed)
    Py_ssize_t vbr_mt_size()
'''

# the seeds module's part (native.py SEEDS): a generator as rng.generator makes it, seeded in C
# when `checked` was set (by `usable`), else by Python's own seeding
SOURCE = f'''
{IMPORT}
import random as _random_module
import _random as _c_random

_new = _random_module.Random.__new__
_Random = _random_module.Random
_python_seed = _c_random.Random.seed
checked = False


def generator(x):
    r = _new(_Random)
    if checked and type(x) is int and 0 <= x <= 0xFFFFFFFFFFFFFFFF:
        vbr_mt_seed(r, x)
    else:
        _python_seed(r, x)
    r.gauss_next = None
    return r


def layout_size():
    return vbr_mt_size()
'''

EDGES = (0, 1, 2, 0xFFFFFFFF, 1 << 32, (1 << 32) + 1, 0x9E3779B97F4A7C15, (1 << 64) - 1)


def usable(seeds) -> bool:
    """Whether the seeds module's C seeding may be used here: the generator object is laid out as
    it assumes (its size; the table written inside it), and generators it seeds draw Python's
    numbers at the edges of the key's length. Sets `seeds.checked` when it may."""
    if _random.Random.__basicsize__ != seeds.layout_size() or random.Random.__basicsize__ < seeds.layout_size():
        return False
    seeds.checked = True
    for x in EDGES:
        mine, python = seeds.generator(x), random.Random(x)
        if mine.getstate() != python.getstate() or mine.getrandbits(64) != python.getrandbits(64):
            seeds.checked = False
            return False
    return True
