"""Python's Mersenne Twister in C: `random.Random(x)` for a 64-bit seed made about a quarter cheaper,
and a draw scaled to a range, `(g.getrandbits(64) * n) >> 64`, made without a call or an int of
64 bits. The same numbers, the same generator state after.

Why. Every game makes a generator for its dice and shuffles and one for each random seat, and
seeding a Mersenne Twister is about 1,900 dependent multiplications: three of them were a tenth
of a bundled game (docs/performance.md, session 18). Python's seeding first fills the table from
the constant 19650218 (624 of those multiplications, the same every time) and then mixes the
seed in; here the first part is done once per process and copied. A draw (a die, a shuffle, a
random seat's pick: about 200 a game of a bundled file) looked the method up, called it, built
an int from two 32-bit words (`_PyLong_FromByteArray`) and multiplied it: about 300
instructions, where the two words and the scaling take about 40.

How. `random.Random(x)` for an int x of 0..2**64-1 takes x as its one or two 32-bit words, low
first (one word when x is below 2**32, zero included), and runs MT19937's `init_by_array`
(Matsumoto and Nishimura's reference, 2002) over them; `getrandbits(64)` is two of the
reference's words, the first the low half. The C below does the same on the generator's own
table, which CPython keeps just after the object's header and its `index`: a layout CPython
does not promise. So the C is used only where it was checked, once per compiled module and
before anything is read or written through it (`vbr_mt_usable`): the object is exactly as large
as the layout says, and generators seeded and drawn both ways, Python's and this, give the same
numbers for seeds at every edge of the key's length (EDGES), through two renewals of the table.
Anywhere else, and for any other generator (a clone's `_Deferred`, a subclass), Python's own
way is taken.
"""
from __future__ import annotations

MODULE = "vbr_mt"  # the .pxd the seeds module, the parts and the helpers cimport
# the seeds the check seeds both ways (the C's `edges`): the ends of one and of two key words
EDGES = (0, 1, 2, 0xFFFFFFFF, 1 << 32, (1 << 32) + 1, 0x9E3779B97F4A7C15, (1 << 64) - 1)
BELOW, BELOW_OF = "vbr_below", "vbr_below_of"
IMPORT = f"from cython.cimports.{MODULE} import vbr_mt_seed, vbr_mt_usable, {BELOW}, {BELOW_OF}"

# (x * n) >> 64 by Python's own operators: the slow way of native_ints.py's vbr_scaled and of the
# draws below; guarded, for a part cimports both .pxd files and their C then stands in one file
SCALED_SLOW = """\
    #ifndef VBR_SCALED_SLOW
    #define VBR_SCALED_SLOW
    static PyObject *vbr_scaled_slow(PyObject *x, PyObject *n) {
        PyObject *product = PyNumber_Multiply(x, n), *shift, *r;
        if (product == NULL)
            return NULL;
        shift = PyLong_FromLong(64);
        if (shift == NULL) {
            Py_DECREF(product);
            return NULL;
        }
        r = PyNumber_Rshift(product, shift);
        Py_DECREF(product);
        Py_DECREF(shift);
        return r;
    }
    #endif
"""

PXD = '''\
cdef extern from *:
    """
''' + SCALED_SLOW + '''
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


    /* MT19937's next 32-bit word (the reference's genrand_int32): every 624 words the table is
       made anew */
    static inline uint32_t vbr_mt_next(vbr_mt_object *r) {
        uint32_t *mt = r->state, y;
        if (r->index >= VBR_MT_N) {  /* word k from words k, k + 1 and k + 397, round the table */
            int k;
            for (k = 0; k < VBR_MT_N - 397; k++) {
                y = (mt[k] & 0x80000000U) | (mt[k + 1] & 0x7fffffffU);
                mt[k] = mt[k + 397] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
            }
            for (; k < VBR_MT_N - 1; k++) {
                y = (mt[k] & 0x80000000U) | (mt[k + 1] & 0x7fffffffU);
                mt[k] = mt[k + 397 - VBR_MT_N] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
            }
            y = (mt[VBR_MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
            mt[VBR_MT_N - 1] = mt[396] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
            r->index = 0;
        }
        y = mt[r->index++];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680U;
        y ^= (y << 15) & 0xefc60000U;
        y ^= y >> 18;
        return y;
    }

    /* getrandbits(64): two words, the first the low half */
    static inline unsigned long long vbr_mt_bits64(vbr_mt_object *r) {
        unsigned long long low = vbr_mt_next(r);
        return low | ((unsigned long long)vbr_mt_next(r) << 32);
    }

    /* Whether this process's generators are laid out as vbr_mt_object says, checked once (per
       module) before anything is read or written through it: the object's size, then seeds at
       the edges of the key's length, seeded and drawn both ways, Python's and the C above,
       through two renewals of the table. 1 yes, -1 no (and Python's way is taken). */
    static int vbr_mt_checked = 0;
    static PyTypeObject *vbr_mt_random = NULL;  /* random.Random, once checked */
    static PyCFunction vbr_mt_getrandbits = NULL;  /* _random.Random.getrandbits, once checked */

    static int vbr_mt_same_draws(PyObject *python, PyObject *mine) {
        int i;
        for (i = 0; i < 700; i++) {  /* two renewals of the table */
            PyObject *bits = PyObject_CallMethod(python, "getrandbits", "i", 64);
            unsigned long long b;
            if (bits == NULL)
                return -1;
            b = PyLong_AsUnsignedLongLong(bits);
            Py_DECREF(bits);
            if (b == (unsigned long long)-1 && PyErr_Occurred())
                return -1;
            if (b != vbr_mt_bits64((vbr_mt_object *)mine))
                return 0;
        }
        return 1;
    }

    static int vbr_mt_check(void) {
        static const unsigned long long edges[] = {0ULL, 1ULL, 2ULL, 0xFFFFFFFFULL, 0x100000000ULL,
                                                    0x100000001ULL, 0x9E3779B97F4A7C15ULL, 0xFFFFFFFFFFFFFFFFULL};
        PyObject *random = NULL, *Random = NULL, *base = NULL, *descr = NULL;
        int ok = 0;
        size_t e;
        random = PyImport_ImportModule("random");
        if (random == NULL) goto done;
        Random = PyObject_GetAttrString(random, "Random");
        base = PyImport_ImportModule("_random");
        if (Random == NULL || base == NULL) goto done;
        descr = PyObject_GetAttrString(base, "Random");
        Py_DECREF(base);
        base = descr;
        descr = base == NULL ? NULL : PyObject_GetAttrString(base, "getrandbits");
        if (descr == NULL || !PyType_Check(Random) || !PyType_Check(base)
                || Py_TYPE(descr) != &PyMethodDescr_Type
                || ((PyTypeObject *)base)->tp_basicsize != (Py_ssize_t)sizeof(vbr_mt_object)
                || !PyType_IsSubtype((PyTypeObject *)Random, (PyTypeObject *)base))
            goto done;
        for (e = 0; e < sizeof edges / sizeof edges[0]; e++) {
            PyObject *seed = PyLong_FromUnsignedLongLong(edges[e]);
            PyObject *python = seed ? PyObject_CallOneArg(Random, seed) : NULL;
            PyObject *again = seed ? PyObject_CallOneArg(Random, seed) : NULL;
            PyObject *twin = seed ? PyObject_CallOneArg(Random, seed) : NULL;
            PyObject *mine = PyObject_CallMethod(Random, "__new__", "O", Random);
            int same = -1;
            if (python && again && twin && mine) {
                vbr_mt_seed(mine, edges[e]);
                same = vbr_mt_same_draws(python, mine);  /* seeded here, drawn here */
                if (same == 1)
                    same = vbr_mt_same_draws(again, twin);  /* seeded by Python, drawn here */
            }
            Py_XDECREF(seed);
            Py_XDECREF(python);
            Py_XDECREF(again);
            Py_XDECREF(twin);
            Py_XDECREF(mine);
            if (same != 1) goto done;
        }
        vbr_mt_random = (PyTypeObject *)Random;
        Py_INCREF(Random);
        vbr_mt_getrandbits = ((PyMethodDescrObject *)descr)->d_method->ml_meth;
        ok = 1;
    done:
        PyErr_Clear();
        Py_XDECREF(random);
        Py_XDECREF(Random);
        Py_XDECREF(base);
        Py_XDECREF(descr);
        return ok ? 1 : -1;
    }

    static inline int vbr_mt_usable(void) {
        if (vbr_mt_checked == 0)
            vbr_mt_checked = vbr_mt_check();
        return vbr_mt_checked > 0;
    }

    static PyObject *vbr_mt_sixty_four(void) {  /* 64, an int Python keeps: never freed */
        static PyObject *k = NULL;
        if (k == NULL)
            k = PyLong_FromLong(64);
        return k;
    }

    /* (x * n) >> 64 for a draw x = bits(64) (taken: a new reference, or NULL) */
    static PyObject *vbr_below_slow(PyObject *bits, PyObject *n) {
        PyObject *r;
        if (bits == NULL)
            return NULL;
        r = vbr_scaled_slow(bits, n);
        Py_DECREF(bits);
        return r;
    }

    /* n for the draw in C: an exact int of 0..2**30 */
    static inline long long vbr_mt_range(PyObject *n) {
        int overflow;
        long long k;
        if (!PyLong_CheckExact(n))
            return -1;
        k = PyLong_AsLongLongAndOverflow(n, &overflow);
        return overflow || k > 0x40000000LL ? -1 : k;
    }

    static inline PyObject *vbr_mt_scaled(vbr_mt_object *r, long long k) {
        unsigned long long v = vbr_mt_bits64(r);
        unsigned long long high = (v >> 32) * (unsigned long long)k, low = (v & 0xFFFFFFFFULL) * (unsigned long long)k;
        return PyLong_FromUnsignedLongLong((high + (low >> 32)) >> 32);
    }

    /* (f(64) * n) >> 64, f a generator's getrandbits (a random seat's draws) */
    static PyObject *vbr_below(PyObject *f, PyObject *n) {
        long long k;
        if (PyCFunction_Check(f) && (k = vbr_mt_range(n)) >= 0 && vbr_mt_usable()) {
            PyObject *self = PyCFunction_GET_SELF(f);
            if (self != NULL && Py_TYPE(self) == vbr_mt_random && PyCFunction_GET_FUNCTION(f) == vbr_mt_getrandbits)
                return vbr_mt_scaled((vbr_mt_object *)self, k);
        }
        return vbr_below_slow(PyObject_CallOneArg(f, vbr_mt_sixty_four()), n);
    }

    /* (g.getrandbits(64) * n) >> 64, g a generator (a die's roll) */
    static PyObject *vbr_below_of(PyObject *g, PyObject *n) {
        long long k;
        if ((k = vbr_mt_range(n)) >= 0 && vbr_mt_usable() && Py_TYPE(g) == vbr_mt_random)
            return vbr_mt_scaled((vbr_mt_object *)g, k);
        return vbr_below_slow(PyObject_CallMethod(g, "getrandbits", "i", 64), n);
    }

    static int vbr_mt_refuse(void) {  /* for tests: Python's way from now on */
        vbr_mt_checked = -1;
        return 0;
    }
    """
    void vbr_mt_seed(object r, unsigned long long seed)
    bint vbr_mt_usable()
    int vbr_mt_refuse()
    object vbr_below(object f, object n)
    object vbr_below_of(object g, object n)
'''

# the seeds module's part (native.py SEEDS): a generator as rng.generator makes it, seeded in C
# where this process's generators were checked to be laid out as the C says (`vbr_mt_usable`)
SOURCE = f'''
{IMPORT}
import random as _random_module
import _random as _c_random

_new = _random_module.Random.__new__
_Random = _random_module.Random
_python_seed = _c_random.Random.seed


def generator(x):
    r = _new(_Random)
    if type(x) is int and 0 <= x <= 0xFFFFFFFFFFFFFFFF and vbr_mt_usable():
        vbr_mt_seed(r, x)
    else:
        _python_seed(r, x)
    r.gauss_next = None
    return r


def usable():
    return vbr_mt_usable()
'''
