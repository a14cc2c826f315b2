/* A Python callable that plays one whole random game of a C engine per call (CEngine.whole_games):
 * `player(seed)` writes the seed into the call's first word, calls the engine's
 * vbr_play_game(S, io) with the GIL released, and returns (status, None, bytes): the status
 * vbr_play_game returned and the bytes of io from `out_from` to the end of the score track's rows
 * it wrote (`track_from` + the rows counted at word `rows_at` times `row_octets`). It does what a
 * call through ctypes does, without libffi's cost of a call.
 *
 * Built by the system's C compiler against this Python's headers (the public C API), once per
 * Python and compiler, and cached as the engines are (vbr.engines.c_engine). It holds no text of
 * a rule file: a player is made from the address of a loaded engine's function and of the words
 * it plays in, and keeps their owners alive.
 *
 * A player's words belong to the thread that made it: a call from any other thread is handed to
 * `elsewhere` (a Python callable with words of each thread's own), since vbr_play_game runs
 * without the GIL and two threads never share the words it plays in. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>

typedef int (*vbr_play_fn)(int64_t *S, int64_t *io);

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    vbr_play_fn play;
    int64_t *state, *io;
    Py_ssize_t io_octets, rows_at, out_from, track_from, row_octets;
    unsigned long thread;  /* the thread whose words these are */
    PyObject *owners;      /* what owns state and io */
    PyObject *elsewhere;   /* plays a call from another thread */
    PyObject *words;       /* the `words` attribute: the game's final state, played again */
} Player;

static PyObject *player_play(Player *self, PyObject *seed_arg) {
    unsigned long long seed = PyLong_AsUnsignedLongLongMask(seed_arg);
    if (seed == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    int64_t *io = self->io;
    io[0] = (int64_t)seed;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = self->play(self->state, io);
    Py_END_ALLOW_THREADS
    int64_t rows = io[self->rows_at];
    if (rows < 0 || rows > (self->io_octets - self->track_from) / self->row_octets) {
        PyErr_SetString(PyExc_SystemError, "vbr_play_game counted more score-track rows than its words hold");
        return NULL;
    }
    Py_ssize_t end = self->track_from + (Py_ssize_t)rows * self->row_octets;
    PyObject *packed = PyBytes_FromStringAndSize((const char *)io + self->out_from, end - self->out_from);
    if (packed == NULL) return NULL;
    PyObject *code = PyLong_FromLong(status);
    if (code == NULL) {
        Py_DECREF(packed);
        return NULL;
    }
    PyObject *result = PyTuple_New(3);
    if (result == NULL) {
        Py_DECREF(packed);
        Py_DECREF(code);
        return NULL;
    }
    Py_INCREF(Py_None);
    PyTuple_SET_ITEM(result, 0, code);
    PyTuple_SET_ITEM(result, 1, Py_None);
    PyTuple_SET_ITEM(result, 2, packed);
    return result;
}

static PyObject *player_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Player *self = (Player *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 1 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0)) {
        PyErr_SetString(PyExc_TypeError, "a whole game's player takes one argument, the seed");
        return NULL;
    }
    if (PyThread_get_thread_ident() != self->thread)
        return PyObject_CallOneArg(self->elsewhere, args[0]);
    return player_play(self, args[0]);
}

static int player_init(Player *self, PyObject *args, PyObject *kwargs) {
    unsigned long long play, state, io;
    Py_ssize_t io_octets, rows_at, out_from, track_from, row_octets;
    PyObject *owners, *elsewhere, *words;
    static char *names[] = {"play", "state", "io", "io_octets", "rows_at", "out_from", "track_from",
                            "row_octets", "owners", "elsewhere", "words", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "KKKnnnnnOOO", names, &play, &state, &io, &io_octets,
                                     &rows_at, &out_from, &track_from, &row_octets, &owners, &elsewhere, &words))
        return -1;
    if (!play || !state || !io || row_octets <= 0 || out_from < 0 || out_from > track_from
        || track_from > io_octets || rows_at < 0 || (rows_at + 1) * 8 > io_octets) {
        PyErr_SetString(PyExc_ValueError, "a whole game's player needs a function, words and a layout inside them");
        return -1;
    }
    self->play = (vbr_play_fn)(uintptr_t)play;
    self->state = (int64_t *)(uintptr_t)state;
    self->io = (int64_t *)(uintptr_t)io;
    self->io_octets = io_octets;
    self->rows_at = rows_at;
    self->out_from = out_from;
    self->track_from = track_from;
    self->row_octets = row_octets;
    self->thread = PyThread_get_thread_ident();
    Py_INCREF(owners);
    Py_XSETREF(self->owners, owners);
    Py_INCREF(elsewhere);
    Py_XSETREF(self->elsewhere, elsewhere);
    Py_INCREF(words);
    Py_XSETREF(self->words, words);
    self->vectorcall = player_vectorcall;
    return 0;
}

static int player_traverse(Player *self, visitproc visit, void *arg) {
    Py_VISIT(self->owners);
    Py_VISIT(self->elsewhere);
    Py_VISIT(self->words);
    return 0;
}

static int player_clear(Player *self) {
    Py_CLEAR(self->owners);
    Py_CLEAR(self->elsewhere);
    Py_CLEAR(self->words);
    return 0;
}

static void player_dealloc(Player *self) {
    PyObject_GC_UnTrack(self);
    player_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef player_members[] = {
    {"words", T_OBJECT_EX, offsetof(Player, words), READONLY, "plays the seed's game again; its final words"},
    {NULL},
};

static PyTypeObject PlayerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "vbr_whole_game_call.Player",
    .tp_basicsize = sizeof(Player),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "plays one whole random game of a C engine per call: player(seed) -> (status, None, bytes)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)player_init,
    .tp_dealloc = (destructor)player_dealloc,
    .tp_traverse = (traverseproc)player_traverse,
    .tp_clear = (inquiry)player_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Player, vectorcall),
    .tp_members = player_members,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "vbr_whole_game_call", "one whole random game of a C engine per call", -1, NULL,
};

PyMODINIT_FUNC PyInit_vbr_whole_game_call(void) {
    if (PyType_Ready(&PlayerType) < 0) return NULL;
    PyObject *made = PyModule_Create(&module);
    if (made == NULL) return NULL;
    Py_INCREF(&PlayerType);
    if (PyModule_AddObject(made, "Player", (PyObject *)&PlayerType) < 0) {
        Py_DECREF(&PlayerType);
        Py_DECREF(made);
        return NULL;
    }
    return made;
}
