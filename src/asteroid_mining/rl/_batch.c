/* The batched environment's observations in one C loop over the batch (`rl.batch.BatchEnv`, `rl._native`).
 *
 * `fill` does what `BatchEnv._fill_numpy` does with some thirty numpy operations over the whole batch: each
 * game's settler row and exit slots gathered from the batch's table, the columns that change with the round, the
 * settler and the team, the guidance read from the game's matrix of moves, the game's own features from its
 * counts, and the masks. It writes straight into the batch's observation and mask arrays, with the same float64
 * operations rounded once to float32, so that its output is bit for bit the numpy path's (tests/ai/
 * test_rl_batch.py runs both). `rows` writes the table rows the steps rewrote (`table.rows_of`).
 *
 * Arrays are read through the buffer protocol (numpy's arrays and the standard library's `array.array` both give
 * it), so the module needs Python's headers alone. Shapes and dtypes are checked by the Python wrapper, which
 * owns the arrays; the C code checks only the sizes of the buffers it indexes into and their item sizes.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* A buffer held for the length of a call. */
typedef struct {
    Py_buffer view;
    int held;
} Held;

static int hold_as(PyObject *obj, Held *h, Py_ssize_t itemsize, int flags, const char *name) {
    if (PyObject_GetBuffer(obj, &h->view, flags) < 0) {
        return -1;
    }
    h->held = 1;
    if (h->view.itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "%s: items of %zd bytes expected, not %zd", name, itemsize,
                     h->view.itemsize);
        return -1;
    }
    return 0;
}

/* A C-contiguous buffer of items of `itemsize` bytes. */
static int hold(PyObject *obj, Held *h, Py_ssize_t itemsize, int writable, const char *name) {
    return hold_as(obj, h, itemsize, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0), name);
}

static void release(Held *h, int count) {
    for (int i = 0; i < count; i++) {
        if (h[i].held) {
            PyBuffer_Release(&h[i].view);
            h[i].held = 0;
        }
    }
}

static Py_ssize_t items(Held *h) { return h->view.len / h->view.itemsize; }

/* Python's (and numpy's) modulo of integers: the sign of the divisor. */
static inline int64_t floor_mod(int64_t a, int64_t b) {
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

static inline double at_most_one(double x) { return x < 1.0 ? x : 1.0; }

enum {
    OBS, MASKS, FEATURES, NUMBERS_, MATRICES, ROWS, SEL, ROUNDS, WANTS, COUNTS, VIA, STORMS, URGENCY, ON, SAFE, SCALED,
    VIA_FLAGS, STORM_AT, BUFFERS
};

/* fill(observations, masks, features, numbers, matrices, rows, sel, rounds, wants, counts, via, storms,
 *      urgency, on, safe, scaled, via_flags, storm_at,
 *      n, width, size, others, n_actions, max_rounds, codes, kinds, asteroid_features, guide_at,
 *      global_features, gate_limit, win_target, cargo_limit, counts_width) */
static PyObject *fill(PyObject *self, PyObject *args) {
    PyObject *objs[BUFFERS];
    Py_ssize_t n, width, size, others, n_actions, max_rounds, codes, kinds, af, guide_at, globals, gate_limit,
        win_target, cargo_limit, counts_width;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOOOnnnnnnnnnnnnnnn", &objs[OBS], &objs[MASKS], &objs[FEATURES],
                          &objs[NUMBERS_], &objs[MATRICES], &objs[ROWS], &objs[SEL], &objs[ROUNDS], &objs[WANTS],
                          &objs[COUNTS], &objs[VIA], &objs[STORMS], &objs[URGENCY], &objs[ON], &objs[SAFE],
                          &objs[SCALED], &objs[VIA_FLAGS], &objs[STORM_AT], &n, &width, &size, &others,
                          &n_actions, &max_rounds, &codes, &kinds, &af, &guide_at, &globals, &gate_limit,
                          &win_target, &cargo_limit, &counts_width)) {
        return NULL;
    }
    static const Py_ssize_t itemsize[BUFFERS] = {4, 1, 4, 8, 1, 8, 8, 8, 1, 8, 8, 8, 8, 8, 4, 4, 1, 8};
    static const int writable[BUFFERS] = {1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
    static const char *names[BUFFERS] = {"observations", "masks", "features", "numbers", "matrices", "rows", "sel",
                                         "rounds", "wants", "counts", "via", "storms", "urgency", "on", "safe",
                                         "scaled", "via_flags", "storm_at"};
    Held h[BUFFERS];
    memset(h, 0, sizeof h);
    for (int b = 0; b < BUFFERS; b++) {
        if (hold(objs[b], &h[b], itemsize[b], writable[b], names[b]) < 0) {
            release(h, BUFFERS);
            return NULL;
        }
    }
    const Py_ssize_t stride = size + 5; /* a matrix row: the moves to every asteroid, the static columns, FAR */
    const Py_ssize_t targets = others + 4;
    const Py_ssize_t pad = n * size;
    const Py_ssize_t obs_size = globals + width * af;
    const char *wrong = NULL;
    if (n < 1 || width < 1 || size < 1 || others < 1 || af < guide_at + 10 || counts_width < 8 + 2 * kinds ||
        globals < 7 + 2 * kinds) {
        wrong = "the batch's dimensions";
    } else if (items(&h[OBS]) != n * obs_size) {
        wrong = "observations";
    } else if (items(&h[MASKS]) != n * n_actions) {
        wrong = "masks";
    } else if (items(&h[FEATURES]) != (pad + 1) * af) {
        wrong = "features";
    } else if (items(&h[NUMBERS_]) != (pad + 1) * 5) {
        wrong = "numbers";
    } else if (items(&h[MATRICES]) != n * size * stride) {
        wrong = "matrices";
    } else if (items(&h[ROWS]) != n * width || items(&h[VIA_FLAGS]) != n * width ||
               items(&h[STORM_AT]) != n * width) {
        wrong = "rows";
    } else if (items(&h[SEL]) != n * targets) {
        wrong = "sel";
    } else if (items(&h[ROUNDS]) != n) {
        wrong = "rounds";
    } else if (items(&h[WANTS]) != n * codes) {
        wrong = "wants";
    } else if (items(&h[COUNTS]) != n * counts_width) {
        wrong = "counts";
    } else if (items(&h[STORMS]) != items(&h[URGENCY])) {
        wrong = "storms";
    } else if (items(&h[SAFE]) != codes * 3 || items(&h[SCALED]) != 256) {
        wrong = "safe";
    }
    if (wrong != NULL) {
        release(h, BUFFERS);
        PyErr_Format(PyExc_ValueError, "fill: %s do not match the batch's shape", wrong);
        return NULL;
    }
    float *out = (float *)h[OBS].view.buf;
    int8_t *masks = (int8_t *)h[MASKS].view.buf;
    const float *features = (const float *)h[FEATURES].view.buf;
    const int64_t *numbers = (const int64_t *)h[NUMBERS_].view.buf;
    const uint8_t *matrices = (const uint8_t *)h[MATRICES].view.buf;
    const int64_t *rows = (const int64_t *)h[ROWS].view.buf;
    const int64_t *sel = (const int64_t *)h[SEL].view.buf;
    const int64_t *rounds = (const int64_t *)h[ROUNDS].view.buf;
    const int8_t *wants = (const int8_t *)h[WANTS].view.buf;
    const int64_t *counts = (const int64_t *)h[COUNTS].view.buf;
    const int64_t *via = (const int64_t *)h[VIA].view.buf;
    const int64_t *storms = (const int64_t *)h[STORMS].view.buf;
    const double *urgency = (const double *)h[URGENCY].view.buf;
    const int64_t *on = (const int64_t *)h[ON].view.buf;
    const float *safe = (const float *)h[SAFE].view.buf;
    const float *scaled = (const float *)h[SCALED].view.buf;
    uint8_t *via_flags = (uint8_t *)h[VIA_FLAGS].view.buf;
    int64_t *storm_at = (int64_t *)h[STORM_AT].view.buf; /* index into storms + 1, 0: none */
    const Py_ssize_t slots = n * width;
    const Py_ssize_t n_via = items(&h[VIA]), n_storms = items(&h[STORMS]), n_on = items(&h[ON]);
    /* every index read from the Python side is checked before it is used */
    for (Py_ssize_t k = 0; k < slots; k++) {
        if (rows[k] < 0 || rows[k] > pad) {
            wrong = "rows";
        }
    }
    for (Py_ssize_t k = 0; k < n * targets; k++) {
        if (sel[k] < 0 || sel[k] >= stride) {
            wrong = "sel";
        }
    }
    for (Py_ssize_t k = 0; k < n_via; k++) {
        if (via[k] < 0 || via[k] >= slots) {
            wrong = "via";
        }
    }
    for (Py_ssize_t k = 0; k < n_storms; k++) {
        if (storms[k] < 0 || storms[k] >= slots) {
            wrong = "storms";
        }
    }
    for (Py_ssize_t k = 0; k < n_on; k++) {
        if (on[k] < 0 || on[k] >= n * n_actions) {
            wrong = "on";
        }
    }
    if (wrong != NULL) {
        release(h, BUFFERS);
        PyErr_Format(PyExc_ValueError, "fill: an index of %s is out of range", wrong);
        return NULL;
    }
    memset(via_flags, 0, (size_t)slots);
    memset(storm_at, 0, (size_t)slots * sizeof(int64_t));
    for (Py_ssize_t k = 0; k < n_via; k++) {
        via_flags[via[k]] = 1;
    }
    for (Py_ssize_t k = 0; k < n_storms; k++) {
        storm_at[storms[k]] = k + 1; /* (the last one written wins, as numpy's assignment) */
    }
    uint8_t moves[16 * 5]; /* each slot's five moves, for a row of at most 16 slots... */
    uint8_t *many = NULL;  /* ...or more */
    uint8_t *mv = moves;
    if (width > 16) {
        many = (uint8_t *)PyMem_Malloc((size_t)width * 5);
        if (many == NULL) {
            release(h, BUFFERS);
            return PyErr_NoMemory();
        }
        mv = many;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        float *row_out = out + i * obs_size;
        const int64_t *where = rows + i * width;
        const int64_t *c = counts + i * counts_width;
        const int64_t now = rounds[i];
        const int64_t *targets_of = sel + i * targets;
        const uint8_t *matrix = matrices + i * size * stride;
        /* the game's and the settler's features (`Encoder.globals`) */
        row_out[0] = (float)at_most_one((double)c[0] / (double)max_rounds);
        row_out[1] = (float)c[1];
        row_out[2] = (float)((double)c[2] / (double)(c[3] > 1 ? c[3] : 1));
        row_out[3] = (float)c[4];
        row_out[4] = (float)((double)c[5] / (double)gate_limit);
        for (Py_ssize_t k = 0; k < kinds; k++) {
            row_out[5 + k] = (float)((double)c[6 + k] / (double)win_target);
            row_out[5 + kinds + k] = (float)((double)c[6 + kinds + k] / (double)cargo_limit);
        }
        row_out[5 + 2 * kinds] = (float)((double)c[6 + 2 * kinds] / (double)cargo_limit);
        const int64_t degree = c[7 + 2 * kinds];
        row_out[6 + 2 * kinds] = degree < 0 ? 0.0f : (float)at_most_one((double)degree / 100.0);
        /* the guidance's moves of every slot: the nearest of the others, then the other four targets */
        for (Py_ssize_t s = 0; s < width; s++) {
            Py_ssize_t local = (Py_ssize_t)where[s] - i * size;
            if (local > size - 1) {
                local = size - 1; /* (an empty slot: any row, zeroed below) */
            }
            if (local < 0) {
                local = 0;
            }
            const uint8_t *line = matrix + local * stride;
            uint8_t nearest = line[targets_of[0]];
            for (Py_ssize_t t = 1; t < others; t++) {
                const uint8_t m = line[targets_of[t]];
                nearest = m < nearest ? m : nearest;
            }
            uint8_t *slot_moves = mv + s * 5;
            slot_moves[0] = nearest;
            for (Py_ssize_t t = 1; t < 5; t++) {
                slot_moves[t] = line[targets_of[others - 1 + t]];
            }
        }
        const int64_t settler_row = where[0];
        for (Py_ssize_t s = 0; s < width; s++) {
            float *f = row_out + globals + s * af;
            const int64_t r = where[s];
            if (r == pad) {
                memset(f, 0, (size_t)af * sizeof(float));
                continue;
            }
            memcpy(f, features + r * af, (size_t)af * sizeof(float));
            const int64_t *number = numbers + r * 5;
            const int64_t settled = number[0], code = number[1], period = number[2], window = number[3],
                          phase = number[4];
            const int near_now = floor_mod(now - 1 + phase, period) < window; /* `rules.Orbit.is_near` */
            const int near_next = floor_mod(now + phase, period) < window;
            const Py_ssize_t k = i * width + s;
            if (via_flags[k]) {
                f[1] = 1.0f;
            }
            f[3] = (float)near_now;
            f[4] = (float)near_next;
            if (storm_at[k]) {
                f[6] = 1.0f;
                f[7] = (float)urgency[storm_at[k] - 1];
            }
            f[8] = (float)at_most_one((double)(settled - (r == settler_row)) / 3.0);
            f[11] = wants[i * codes + code] ? 1.0f : 0.0f;
            f[12] = safe[code * 3 + (near_now ? 0 : 2 - near_next)];
            const uint8_t *slot_moves = mv + s * 5;
            for (Py_ssize_t t = 0; t < 5; t++) {
                f[guide_at + 2 * t] = scaled[slot_moves[t]];
                f[guide_at + 2 * t + 1] = slot_moves[t] < mv[t] ? 1.0f : 0.0f;
            }
        }
    }
    PyMem_Free(many);
    memset(masks, 0, (size_t)(n * n_actions));
    for (Py_ssize_t k = 0; k < n_on; k++) {
        masks[on[k]] = 1;
    }
    release(h, BUFFERS);
    Py_RETURN_NONE;
}


/* static_columns(matrix, wants, codes, shelters): the three static columns of a game's matrix of moves
 * (`hops.Hops.static` on a belt of at most `FULL` asteroids): for every asteroid, the moves to the nearest known
 * needed core (`wants[codes[j]]`), unsurveyed asteroid (`codes[j] == unknown`) and shelter, `FAR` when none;
 * the minimum over the targets' rows of the matrix (the links are symmetric), as numpy's `min(axis=0)`. */
static PyObject *static_columns(PyObject *self, PyObject *args) {
    PyObject *objs[4];
    Py_ssize_t unknown, far;
    if (!PyArg_ParseTuple(args, "OOOOnn", &objs[0], &objs[1], &objs[2], &objs[3], &unknown, &far)) {
        return NULL;
    }
    static const Py_ssize_t itemsize[4] = {1, 1, 1, 1};
    static const char *names[4] = {"matrix", "wants", "codes", "shelters"};
    Held h[4];
    memset(h, 0, sizeof h);
    for (int b = 0; b < 4; b++) {
        /* (the matrix is a block of the batch's: its rows are further apart than they are long) */
        const int flags = b == 0 ? PyBUF_STRIDES | PyBUF_WRITABLE : PyBUF_C_CONTIGUOUS;
        if (hold_as(objs[b], &h[b], itemsize[b], flags, names[b]) < 0) {
            release(h, 4);
            return NULL;
        }
    }
    const Py_ssize_t n = items(&h[2]);
    const Py_ssize_t wanted = items(&h[1]);
    if (items(&h[3]) != n || h[0].view.ndim != 2 || h[0].view.shape[0] != n || h[0].view.shape[1] < n + 3 ||
        h[0].view.strides[1] != 1 || h[0].view.strides[0] < h[0].view.shape[1] || far < 0 || far > 255) {
        release(h, 4);
        PyErr_SetString(PyExc_ValueError, "static_columns: the matrix, codes and shelters do not match");
        return NULL;
    }
    uint8_t *matrix = (uint8_t *)h[0].view.buf;
    const Py_ssize_t stride = h[0].view.strides[0];
    const int8_t *wants = (const int8_t *)h[1].view.buf;
    const int8_t *codes = (const int8_t *)h[2].view.buf;
    const uint8_t *shelters = (const uint8_t *)h[3].view.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint8_t *line = matrix + i * stride;
        line[n] = line[n + 1] = line[n + 2] = (uint8_t)far;
    }
    for (Py_ssize_t j = 0; j < n; j++) {
        const int8_t code = codes[j];
        const int column[3] = {code >= 0 && code < wanted && wants[code], code == unknown, shelters[j] != 0};
        if (!column[0] && !column[1] && !column[2]) {
            continue;
        }
        const uint8_t *from = matrix + j * stride; /* the moves from j: to j, as the links are symmetric */
        for (int c = 0; c < 3; c++) {
            if (!column[c]) {
                continue;
            }
            for (Py_ssize_t i = 0; i < n; i++) {
                uint8_t *cell = matrix + i * stride + n + c;
                *cell = from[i] < *cell ? from[i] : *cell;
            }
        }
    }
    release(h, 4);
    Py_RETURN_NONE;
}

/* An attribute as a C integer (-1 and an exception when it is missing or not an integer). */
static long long int_attr(PyObject *obj, PyObject *name) {
    PyObject *value = PyObject_GetAttr(obj, name);
    if (value == NULL) {
        return -1;
    }
    long long out = PyLong_AsLongLong(value);
    Py_DECREF(value);
    return out;
}

/* An attribute's length (-1 and an exception when it has none). */
static Py_ssize_t len_attr(PyObject *obj, PyObject *name) {
    PyObject *value = PyObject_GetAttr(obj, name);
    if (value == NULL) {
        return -1;
    }
    Py_ssize_t out = PyObject_Length(value);
    Py_DECREF(value);
    return out;
}

/* An attribute's truth (-1 and an exception when it is missing). */
static int bool_attr(PyObject *obj, PyObject *name) {
    PyObject *value = PyObject_GetAttr(obj, name);
    if (value == NULL) {
        return -1;
    }
    int out = PyObject_IsTrue(value);
    Py_DECREF(value);
    return out;
}

static PyObject *s_core, *s_surveyed, *s_mantle, *s_shelter, *s_exists, *s_orbit, *s_pinned, *s_settlers,
    *s_robots, *s_ufos, *s_neighbours, *s_period, *s_window, *s_phase, *s_near;

/* Replace list[i] with a new reference (stolen). */
static int set_item(PyObject *list, Py_ssize_t i, PyObject *value) {
    if (value == NULL) {
        return -1;
    }
    return PyList_SetItem(list, i, value);
}

/* refresh(ids, asteroids, row, settlers, core, orbit, pinned_near, sheltered, exists, codes, shelters,
 *         features, numbers, code_of, unknown) -> (changes of codes or shelters, asteroids newly gone)
 * What `table.BeltTable.refresh` does for a table kept in a batch's arrays (`rl.batch`), reading the engine's
 * asteroids (`asteroids`: `Game.asteroids`) as `ai.observation.AsteroidView` shows them: the rows of the ids that
 * are asteroids of the table (`row`), written at once into its `features` and `numbers` (the same float64
 * operations as `table.rows_of`, rounded once to float32), and its lists and columns brought up to date. */
static PyObject *refresh(PyObject *self, PyObject *args) {
    PyObject *ids, *asteroids, *row, *settlers, *core, *orbit, *pinned_near, *sheltered, *exists, *codes_obj,
        *shelters_obj, *features_obj, *numbers_obj, *code_of;
    Py_ssize_t unknown;
    if (!PyArg_ParseTuple(args, "OOO!O!O!O!O!O!O!OOOOO!n", &ids, &asteroids, &PyDict_Type, &row, &PyList_Type,
                          &settlers, &PyList_Type, &core, &PyList_Type, &orbit, &PyList_Type, &pinned_near,
                          &PyList_Type, &sheltered, &PyList_Type, &exists, &codes_obj, &shelters_obj, &features_obj,
                          &numbers_obj, &PyDict_Type, &code_of, &unknown)) {
        return NULL;
    }
    Held h[4];
    memset(h, 0, sizeof h);
    if (hold(codes_obj, &h[0], 1, 1, "codes") < 0 || hold(shelters_obj, &h[1], 1, 1, "shelters") < 0 ||
        hold(features_obj, &h[2], 4, 1, "features") < 0 || hold(numbers_obj, &h[3], 8, 1, "numbers") < 0) {
        release(h, 4);
        return NULL;
    }
    const Py_ssize_t count = PyList_GET_SIZE(settlers);
    if (PyList_GET_SIZE(core) != count || PyList_GET_SIZE(orbit) != count || PyList_GET_SIZE(pinned_near) != count ||
        PyList_GET_SIZE(sheltered) != count || PyList_GET_SIZE(exists) != count || items(&h[0]) != count ||
        items(&h[1]) != count || items(&h[3]) != count * 5 || count == 0 || items(&h[2]) % count != 0 ||
        items(&h[2]) / count < 14 + 6) {
        release(h, 4);
        PyErr_SetString(PyExc_ValueError, "refresh: the table's lists and arrays do not match");
        return NULL;
    }
    const Py_ssize_t af = items(&h[2]) / count;
    int8_t *codes = (int8_t *)h[0].view.buf;
    uint8_t *shelters = (uint8_t *)h[1].view.buf;
    float *features = (float *)h[2].view.buf;
    int64_t *numbers = (int64_t *)h[3].view.buf;
    long long changed = 0, gone = 0;
    PyObject *iterator = PyObject_GetIter(ids);
    if (iterator == NULL) {
        release(h, 4);
        return NULL;
    }
    PyObject *tid;
    PyObject *a = NULL;
    while ((tid = PyIter_Next(iterator)) != NULL) {
        PyObject *index = PyDict_GetItemWithError(row, tid); /* borrowed */
        if (index == NULL) {
            Py_DECREF(tid);
            if (PyErr_Occurred()) {
                goto failed;
            }
            continue;
        }
        const Py_ssize_t i = PyLong_AsSsize_t(index);
        a = PyObject_GetItem(asteroids, tid);
        Py_DECREF(tid);
        if (a == NULL || i < 0 || i >= count) {
            if (a != NULL) {
                PyErr_SetString(PyExc_ValueError, "refresh: a row out of the table");
            }
            goto failed;
        }
        /* the core as players know it (`AsteroidView.core`): hidden until surveyed or exposed */
        const long long mantle = int_attr(a, s_mantle);
        const int surveyed = bool_attr(a, s_surveyed);
        if ((mantle == -1 || surveyed < 0) && PyErr_Occurred()) {
            goto failed;
        }
        long long code = unknown;
        if (surveyed || mantle == 0) {
            PyObject *kind = PyObject_GetAttr(a, s_core);
            if (kind == NULL) {
                goto failed;
            }
            PyObject *found = PyDict_GetItemWithError(code_of, kind);
            Py_DECREF(kind);
            if (found == NULL) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_KeyError, "refresh: a core without a code");
                }
                goto failed;
            }
            code = PyLong_AsLongLong(found);
        }
        const Py_ssize_t on = len_attr(a, s_settlers);
        const int shelter = bool_attr(a, s_shelter);
        const int there = bool_attr(a, s_exists);
        const Py_ssize_t robots = len_attr(a, s_robots);
        const Py_ssize_t ufos = len_attr(a, s_ufos);
        const Py_ssize_t degree = len_attr(a, s_neighbours);
        if (on < 0 || shelter < 0 || there < 0 || robots < 0 || ufos < 0 || degree < 0 || code < 0 || code >= 6 ||
            14 + code >= af) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_ValueError, "refresh: a core code out of range");
            }
            goto failed;
        }
        if (set_item(settlers, i, PyLong_FromSsize_t(on)) < 0) {
            goto failed;
        }
        const int was_sheltered = PyObject_IsTrue(PyList_GET_ITEM(sheltered, i));
        const long long was_code = PyLong_AsLongLong(PyList_GET_ITEM(core, i));
        if (was_code != code || was_sheltered != shelter) {
            changed++;
            codes[i] = (int8_t)code;
            shelters[i] = (uint8_t)shelter;
            if (set_item(sheltered, i, PyBool_FromLong(shelter)) < 0) {
                goto failed;
            }
        }
        if (set_item(core, i, PyLong_FromLongLong(code)) < 0) {
            goto failed;
        }
        if (!there && PyObject_IsTrue(PyList_GET_ITEM(exists, i))) {
            if (set_item(exists, i, PyBool_FromLong(0)) < 0) {
                goto failed;
            }
            gone++;
        }
        PyObject *its_orbit = PyObject_GetAttr(a, s_orbit);
        if (its_orbit == NULL) {
            goto failed;
        }
        PyObject *pinned = PyObject_GetAttr(a, s_pinned);
        if (pinned == NULL) {
            Py_DECREF(its_orbit);
            goto failed;
        }
        const int near = PyObject_RichCompareBool(pinned, s_near, Py_EQ);
        Py_DECREF(pinned);
        if (near < 0 || set_item(pinned_near, i, PyBool_FromLong(near)) < 0) {
            Py_DECREF(its_orbit);
            goto failed;
        }
        int64_t *number = numbers + i * 5;
        number[0] = on;
        number[1] = code;
        if (its_orbit == Py_None) {
            number[2] = 1;
            number[3] = near ? 1 : 0;
            number[4] = 0;
        } else {
            number[2] = int_attr(its_orbit, s_period);
            number[3] = int_attr(its_orbit, s_window);
            number[4] = int_attr(its_orbit, s_phase);
            if (PyErr_Occurred()) {
                Py_DECREF(its_orbit);
                goto failed;
            }
        }
        if (set_item(orbit, i, its_orbit) < 0) { /* (the reference goes to the list) */
            goto failed;
        }
        float *f = features + i * af;
        memset(f, 0, (size_t)af * sizeof(float));
        f[0] = 1.0f;
        f[2] = (float)at_most_one((double)mantle / 5.0); /* `table.MAX_MANTLE` */
        f[5] = (float)shelter;
        f[9] = (float)at_most_one((double)robots / 3.0);
        f[10] = (float)at_most_one((double)ufos / 3.0);
        f[13] = (float)at_most_one((double)degree / 20.0);
        f[14 + code] = 1.0f;
        Py_CLEAR(a);
    }
    if (PyErr_Occurred()) {
        goto failed;
    }
    Py_DECREF(iterator);
    release(h, 4);
    return Py_BuildValue("LL", changed, gone);
failed:
    Py_XDECREF(a);
    Py_DECREF(iterator);
    release(h, 4);
    return NULL;
}

static PyMethodDef methods[] = {
    {"fill", fill, METH_VARARGS, "Fill the batch's observations and masks (see the module's source)."},
    {"static_columns", static_columns, METH_VARARGS, "A game's three static columns of moves (see the source)."},
    {"refresh", refresh, METH_VARARGS, "A batch's table rows of what the engine touched (see the source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_batch", "The batched environment's observations in C (rl._native).", -1, methods,
};

PyMODINIT_FUNC PyInit__batch(void) {
    struct {
        PyObject **name;
        const char *text;
    } names[] = {{&s_core, "core"},         {&s_surveyed, "surveyed"}, {&s_mantle, "mantle"},
                 {&s_shelter, "shelter"},   {&s_exists, "exists"},     {&s_orbit, "orbit"},
                 {&s_pinned, "pinned"},     {&s_settlers, "settlers"}, {&s_robots, "robots"},
                 {&s_ufos, "ufos"},         {&s_neighbours, "neighbours"}, {&s_period, "period"},
                 {&s_window, "window"},     {&s_phase, "phase"},       {&s_near, "near"}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        *names[k].name = PyUnicode_InternFromString(names[k].text);
        if (*names[k].name == NULL) {
            return NULL;
        }
    }
    return PyModule_Create(&module);
}
