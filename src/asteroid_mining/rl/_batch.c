/* The batched environment's step and observations in C, one loop over the batch (`rl.batch.BatchEnv`; loaded by
 * `rl._native` while its build matches this source).
 *
 * `step` steps every game of a batch: the action's index decoded, the engine's `Game.apply` called (the rules stay
 * the engine's, Python compiled by mypyc), the table rows of what it touched written into the batch's arrays
 * (`refresh`), the team's sums, the reward and the flags, as `Episode.advance` does; a game with bots in its seats
 * goes through `Episode.advance` itself. `observe` makes every game's mask from the engine's legal actions and
 * gathers its team, exits and targets, then fills every row of the batch's observations from the batch's table and
 * matrices of moves, as `BatchEnv._fill_numpy` does. `static_columns` and `moves_of` work out a game's guidance
 * columns and its matrix of moves (`hops.Hops`). Every float is worked out with the same float64 operations as the
 * Python and numpy path, in the same order, and rounded once to float32 (the build turns fused multiply-adds off):
 * the streams are bit for bit the same (tests/ai/test_rl_batch.py runs both paths).
 *
 * Arrays are read through the buffer protocol, so the module needs Python's headers alone (no numpy headers). The
 * Python side owns the arrays and gives them the right dtypes; the C code checks the sizes of the buffers it
 * indexes into, their item sizes and every index it reads from Python before using it.
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
    /* each column's minimum in a row of its own (the loops over an asteroid's moves run over bytes side by side,
     * which the compiler does several at a time), then written into the matrix */
    uint8_t *column = PyMem_Malloc((size_t)n * 3);
    if (column == NULL) {
        release(h, 4);
        return PyErr_NoMemory();
    }
    memset(column, (int)far, (size_t)n * 3);
    for (Py_ssize_t j = 0; j < n; j++) {
        const int8_t code = codes[j];
        const int is[3] = {code >= 0 && code < wanted && wants[code], code == unknown, shelters[j] != 0};
        const uint8_t *from = matrix + j * stride; /* the moves from j: to j, as the links are symmetric */
        for (int c = 0; c < 3; c++) {
            if (is[c]) {
                uint8_t *to = column + c * n;
                for (Py_ssize_t i = 0; i < n; i++) {
                    to[i] = from[i] < to[i] ? from[i] : to[i];
                }
            }
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        uint8_t *line = matrix + i * stride;
        line[n] = column[i];
        line[n + 1] = column[n + i];
        line[n + 2] = column[2 * n + i];
    }
    PyMem_Free(column);
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
static int refresh_rows(PyObject *ids, PyObject *asteroids, PyObject *row, PyObject *settlers, PyObject *core,
                        PyObject *orbit, PyObject *pinned_near, PyObject *sheltered, PyObject *exists,
                        PyObject *codes_obj, PyObject *shelters_obj, PyObject *features_obj, PyObject *numbers_obj,
                        PyObject *code_of, Py_ssize_t unknown, long long *changed_out, long long *gone_out) {
    if (!PyDict_Check(row) || !PyList_Check(settlers) || !PyList_Check(core) || !PyList_Check(orbit) ||
        !PyList_Check(pinned_near) || !PyList_Check(sheltered) || !PyList_Check(exists) || !PyDict_Check(code_of)) {
        PyErr_SetString(PyExc_TypeError, "refresh: the table's rows must be a dict and its columns lists");
        return -1;
    }
    Held h[4];
    memset(h, 0, sizeof h);
    if (hold(codes_obj, &h[0], 1, 1, "codes") < 0 || hold(shelters_obj, &h[1], 1, 1, "shelters") < 0 ||
        hold(features_obj, &h[2], 4, 1, "features") < 0 || hold(numbers_obj, &h[3], 8, 1, "numbers") < 0) {
        release(h, 4);
        return -1;
    }
    const Py_ssize_t count = PyList_GET_SIZE(settlers);
    if (PyList_GET_SIZE(core) != count || PyList_GET_SIZE(orbit) != count || PyList_GET_SIZE(pinned_near) != count ||
        PyList_GET_SIZE(sheltered) != count || PyList_GET_SIZE(exists) != count || items(&h[0]) != count ||
        items(&h[1]) != count || items(&h[3]) != count * 5 || count == 0 || items(&h[2]) % count != 0 ||
        items(&h[2]) / count < 14 + 6) {
        release(h, 4);
        PyErr_SetString(PyExc_ValueError, "refresh: the table's lists and arrays do not match");
        return -1;
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
        return -1;
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
    *changed_out = changed;
    *gone_out = gone;
    return 0;
failed:
    Py_XDECREF(a);
    Py_DECREF(iterator);
    release(h, 4);
    return -1;
}

static PyObject *refresh(PyObject *self, PyObject *args) {
    PyObject *ids, *asteroids, *row, *settlers, *core, *orbit, *pinned_near, *sheltered, *exists, *codes_obj,
        *shelters_obj, *features_obj, *numbers_obj, *code_of;
    Py_ssize_t unknown;
    long long changed, gone;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOn", &ids, &asteroids, &row, &settlers, &core, &orbit, &pinned_near,
                          &sheltered, &exists, &codes_obj, &shelters_obj, &features_obj, &numbers_obj, &code_of,
                          &unknown) ||
        refresh_rows(ids, asteroids, row, settlers, core, orbit, pinned_near, sheltered, exists, codes_obj,
                     shelters_obj, features_obj, numbers_obj, code_of, unknown, &changed, &gone) < 0) {
        return NULL;
    }
    return Py_BuildValue("LL", changed, gone);
}

/* The shape of a batch (`BatchEnv`), as `observe` is given it. */
typedef struct {
    Py_ssize_t n, width, size, others, n_actions, max_rounds, codes, kinds, af, guide_at, globals, gate_limit,
        win_target, cargo_limit, counts_width;
} Shape;

/* The arrays a batch's observations are made from and written to. */
typedef struct {
    float *out;
    const float *features;
    const int64_t *numbers;
    const uint8_t *matrices;
    const float *safe, *scaled;
    int64_t *rows, *sel, *rounds, *counts;
    int8_t *wants;
    uint8_t *via, *storm;
    double *urgency;
} Arrays;

/* Every row's observation from what the loop over the games gathered (`BatchEnv._fill_numpy`, the same float64
 * operations rounded once to float32). */
static void fill_rows(const Shape *d, const Arrays *a) {
    const Py_ssize_t n = d->n, width = d->width, size = d->size, others = d->others, af = d->af;
    const Py_ssize_t kinds = d->kinds, globals = d->globals, guide_at = d->guide_at;
    const Py_ssize_t stride = size + 5; /* a matrix row: the moves to every asteroid, the static columns, FAR */
    const Py_ssize_t targets = others + 4;
    const Py_ssize_t pad = n * size;
    const Py_ssize_t obs_size = globals + width * af;
    uint8_t moves[64 * 5];
    for (Py_ssize_t i = 0; i < n; i++) {
        float *row_out = a->out + i * obs_size;
        const int64_t *where = a->rows + i * width;
        const int64_t *c = a->counts + i * d->counts_width;
        const int64_t now = a->rounds[i];
        const int64_t *targets_of = a->sel + i * targets;
        const uint8_t *matrix = a->matrices + i * size * stride;
        /* the game's and the settler's features (`Encoder.globals`) */
        row_out[0] = (float)at_most_one((double)c[0] / (double)d->max_rounds);
        row_out[1] = (float)c[1];
        row_out[2] = (float)((double)c[2] / (double)(c[3] > 1 ? c[3] : 1));
        row_out[3] = (float)c[4];
        row_out[4] = (float)((double)c[5] / (double)d->gate_limit);
        for (Py_ssize_t k = 0; k < kinds; k++) {
            row_out[5 + k] = (float)((double)c[6 + k] / (double)d->win_target);
            row_out[5 + kinds + k] = (float)((double)c[6 + kinds + k] / (double)d->cargo_limit);
        }
        row_out[5 + 2 * kinds] = (float)((double)c[6 + 2 * kinds] / (double)d->cargo_limit);
        const int64_t degree = c[7 + 2 * kinds];
        row_out[6 + 2 * kinds] = degree < 0 ? 0.0f : (float)at_most_one((double)degree / 100.0);
        /* the guidance's moves of every slot: the nearest of the others, then the other four targets */
        for (Py_ssize_t s = 0; s < width; s++) {
            Py_ssize_t local = (Py_ssize_t)where[s] - i * size;
            local = local > size - 1 ? size - 1 : (local < 0 ? 0 : local); /* (an empty slot: zeroed below) */
            const uint8_t *line = matrix + local * stride;
            uint8_t nearest = line[targets_of[0]];
            for (Py_ssize_t t = 1; t < others; t++) {
                const uint8_t m = line[targets_of[t]];
                nearest = m < nearest ? m : nearest;
            }
            uint8_t *slot_moves = moves + s * 5;
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
            memcpy(f, a->features + r * af, (size_t)af * sizeof(float));
            const int64_t *number = a->numbers + r * 5;
            const int64_t settled = number[0], code = number[1], period = number[2], window = number[3],
                          phase = number[4];
            const int near_now = floor_mod(now - 1 + phase, period) < window; /* `rules.Orbit.is_near` */
            const int near_next = floor_mod(now + phase, period) < window;
            const Py_ssize_t k = i * width + s;
            if (a->via[k]) {
                f[1] = 1.0f;
            }
            f[3] = (float)near_now;
            f[4] = (float)near_next;
            if (a->storm[k]) {
                f[6] = 1.0f;
                f[7] = (float)a->urgency[k];
            }
            f[8] = (float)at_most_one((double)(settled - (r == settler_row)) / 3.0);
            f[11] = a->wants[i * d->codes + code] ? 1.0f : 0.0f;
            f[12] = a->safe[code * 3 + (near_now ? 0 : 2 - near_next)];
            const uint8_t *slot_moves = moves + s * 5;
            for (Py_ssize_t t = 0; t < 5; t++) {
                f[guide_at + 2 * t] = a->scaled[slot_moves[t]];
                f[guide_at + 2 * t + 1] = slot_moves[t] < moves[t] ? 1.0f : 0.0f;
            }
        }
    }
}

static PyObject *s_obs, *s_game, *s_table, *s_hops, *s_need, *s_row, *s_exits,
    *s_alive, *s_at, *s_carry_total, *s_cargo, *s_gates, *s_round, *s_asteroids, *s_forecasts, *s_storm_round,
    *s_gone, *s_version, *s_key, *s_static_key, *s_matrix, *s_sync, *s_static, *s_n, *s_codes, *s_shelters,
    *s_settlers_, *s_legal_actions, *s_index, *s_settler, *s_turn, *s_learners;
static PyObject *s_potential, *s_exits_cache, *s_apply, *s_take_touched, *s_status, *s_features, *s_numbers,
    *s_orbit_list, *s_pinned_near, *s_sheltered, *s_exists_list, *s_running, *s_won, *s_lost;

/* What the mask is made with (`encoding`): the engine's move class, the index of each action class that has one,
 * and (first index, field, whether over the kinds) of each that has several, the actions before the slots. */
typedef struct {
    PyObject *move, *fixed_index, *varied;
    Py_ssize_t fixed_actions;
} Masking;

/* A new reference to an attribute, or NULL (an exception set). */
#define ATTR(obj, name) PyObject_GetAttr((obj), (name))

/* A game's row of the batch: its masks, its counts and targets, the rows of its slots (`BatchEnv._observe`'s
 * loop for one game). 0, or -1 with an exception set. */
static int gather_game(const Shape *d, const Arrays *a, int8_t *mask, Py_ssize_t i, PyObject *episode,
                       PyObject *settler, PyObject *kinds, PyObject *gate_key, PyObject *wants_arrays,
                       PyObject *columns_by, const Masking *m) {
    const Py_ssize_t width = d->width, size = d->size, others_n = d->others, targets = others_n + 4;
    const Py_ssize_t far = size + 4, pad = d->n * size, first = i * width, offset = i * size;
    int result = -1;
    PyObject *obs = NULL, *game = NULL, *table = NULL, *hops = NULL, *exits = NULL, *on = NULL, *need = NULL,
             *row_of = NULL, *team = NULL, *me = NULL, *at = NULL, *cargo = NULL, *value = NULL, *asteroid = NULL,
             *wants = NULL, *key = NULL, *forecasts = NULL, *storm_round = NULL, *asteroids = NULL;
    int64_t *rows = a->rows + first, *sel = a->sel + i * targets, *c = a->counts + i * d->counts_width;
    int8_t *wants_row = a->wants + i * d->codes;
    int64_t others[64], load_rows[64], loads[64];
    Py_ssize_t n_others = 0, n_loads = 0;
    for (Py_ssize_t s = 0; s < width; s++) {
        rows[s] = pad;
    }
    if (!(obs = ATTR(episode, s_obs)) || !(game = ATTR(episode, s_game)) || !(table = ATTR(episode, s_table)) ||
        !(hops = ATTR(episode, s_hops))) {
        goto done;
    }
    /* the team: the others' rows and where the team carries the most (`BatchEnv._observe`) */
    if (!(need = ATTR(episode, s_need)) || !(row_of = ATTR(table, s_row)) || !(team = ATTR(game, s_settlers_))) {
        goto done;
    }
    if (!PyDict_Check(need) || !PyDict_Check(row_of) || !PyDict_Check(team)) {
        PyErr_SetString(PyExc_TypeError, "observe: need, the table's rows and the team must be dicts");
        goto done;
    }
    me = PyDict_GetItemWithError(team, settler);
    if (me == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetObject(PyExc_KeyError, settler);
        }
        goto done;
    }
    Py_INCREF(me);
    if (!(at = ATTR(me, s_at))) {
        goto done;
    }
    /* the exit slots (`Encoder.exits`: the asteroid's exits when they fit in the slots, else `Episode.exits`
     * ranks them), kept for the next step's move as `Episode.exits` keeps them */
    if (at == Py_None) {
        exits = PyList_New(0);
    } else {
        exits = PyObject_CallMethodOneArg(obs, s_exits, at);
        if (exits != NULL && PyList_Check(exits) && PyList_GET_SIZE(exits) > width - 1) {
            Py_CLEAR(exits);
            exits = PyObject_CallMethodOneArg(episode, s_exits, settler);
        }
    }
    if (exits == NULL) {
        goto done;
    }
    if (!PyList_Check(exits) || PyList_GET_SIZE(exits) > width - 1) {
        PyErr_SetString(PyExc_TypeError, "observe: the exits must be a list that fits in the slots");
        goto done;
    }
    value = PyTuple_Pack(2, settler, exits);
    if (value == NULL || PyObject_SetAttr(episode, s_exits_cache, value) < 0) {
        goto done;
    }
    Py_CLEAR(value);
    /* the mask (`Encoder.mask_indices`): the engine's legal actions, each at its index, and the exit slots */
    if (!(on = PyObject_CallMethodOneArg(obs, s_legal_actions, settler))) {
        goto done;
    }
    if (!PyList_Check(on)) {
        PyErr_SetString(PyExc_TypeError, "observe: legal_actions must give a list");
        goto done;
    }
    memset(mask, 0, (size_t)d->n_actions);
    if (PyList_GET_SIZE(on) > 0) {
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(on); k++) {
            PyObject *action = PyList_GET_ITEM(on, k);
            PyObject *kind = (PyObject *)Py_TYPE(action);
            if (kind == m->move) {
                continue; /* moves are the exit slots, below */
            }
            Py_ssize_t index;
            PyObject *fixed = PyDict_GetItemWithError(m->fixed_index, kind);
            if (fixed != NULL) {
                index = PyLong_AsSsize_t(fixed);
            } else {
                PyObject *varied = PyErr_Occurred() ? NULL : PyDict_GetItemWithError(m->varied, kind);
                if (varied == NULL || !PyTuple_Check(varied) || PyTuple_GET_SIZE(varied) != 3) {
                    if (!PyErr_Occurred()) {
                        PyErr_SetString(PyExc_KeyError, "observe: an action without an index");
                    }
                    goto done;
                }
                const Py_ssize_t first_index = PyLong_AsSsize_t(PyTuple_GET_ITEM(varied, 0));
                PyObject *field = PyObject_GetAttr(action, PyTuple_GET_ITEM(varied, 1));
                if (field == NULL) {
                    goto done;
                }
                Py_ssize_t offset;
                if (PyObject_IsTrue(PyTuple_GET_ITEM(varied, 2))) { /* over the kinds */
                    offset = PySequence_Index(kinds, field);
                } else { /* over the gates the settler carries */
                    PyObject *carried = ATTR(me, s_gates);
                    offset = carried == NULL ? -1 : PySequence_Index(carried, field);
                    Py_XDECREF(carried);
                }
                Py_DECREF(field);
                if (offset < 0) {
                    goto done;
                }
                index = first_index + offset;
            }
            if (index < 0 || index >= d->n_actions) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_ValueError, "observe: an action index out of range");
                }
                goto done;
            }
            mask[index] = 1;
        }
        if (m->fixed_actions + PyList_GET_SIZE(exits) > d->n_actions) {
            PyErr_SetString(PyExc_ValueError, "observe: more exits than slots");
            goto done;
        }
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(exits); k++) {
            mask[m->fixed_actions + k] = 1;
        }
    }
    Py_ssize_t living = 0;
    {
        Py_ssize_t pos = 0;
        PyObject *id, *s;
        while (PyDict_Next(team, &pos, &id, &s)) {
            const int alive = bool_attr(s, s_alive);
            if (alive < 0) {
                goto done;
            }
            if (!alive) {
                continue;
            }
            living++;
            PyObject *place = ATTR(s, s_at);
            if (place == NULL) {
                goto done;
            }
            if (place == Py_None) {
                Py_DECREF(place);
                continue;
            }
            PyObject *j_obj = PyDict_GetItemWithError(row_of, place);
            Py_DECREF(place);
            if (j_obj == NULL) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_KeyError, "observe: a settler on an asteroid without a row");
                }
                goto done;
            }
            const int64_t j = PyLong_AsLongLong(j_obj);
            if (s != me) {
                if (n_others >= others_n || n_others >= 64) {
                    PyErr_SetString(PyExc_ValueError, "observe: more settlers than the batch has room for");
                    goto done;
                }
                others[n_others++] = j;
            }
            const long long carried = int_attr(s, s_carry_total);
            if (carried == -1 && PyErr_Occurred()) {
                goto done;
            }
            Py_ssize_t k = 0;
            while (k < n_loads && load_rows[k] != j) {
                k++;
            }
            if (k == n_loads) {
                if (n_loads >= 64) {
                    PyErr_SetString(PyExc_ValueError, "observe: too many settlers");
                    goto done;
                }
                load_rows[n_loads] = j;
                loads[n_loads++] = 0;
            }
            loads[k] += carried;
        }
    }
    const int64_t r = a->rounds[i] = int_attr(game, s_round);
    if (r == -1 && PyErr_Occurred()) {
        goto done;
    }
    /* the counts of the game's features (`_COUNTS`) and the needed cores */
    c[0] = r;
    const int me_alive = bool_attr(me, s_alive);
    const Py_ssize_t gates_carried = len_attr(me, s_gates);
    const long long me_carried = int_attr(me, s_carry_total);
    if (me_alive < 0 || gates_carried < 0 || (me_carried == -1 && PyErr_Occurred())) {
        goto done;
    }
    c[1] = me_alive;
    c[2] = living;
    c[3] = PyDict_GET_SIZE(team);
    c[5] = gates_carried;
    int anything = 0;
    {
        Py_ssize_t pos = 0, k = 0;
        PyObject *kind, *units;
        while (PyDict_Next(need, &pos, &kind, &units)) {
            const long long u = PyLong_AsLongLong(units);
            if (k >= d->kinds || (u == -1 && PyErr_Occurred())) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_ValueError, "observe: more needs than kinds");
                }
                goto done;
            }
            c[6 + k] = u;
            wants_row[k] = u > 0;
            anything |= u != 0;
            k++;
        }
        for (; k < d->codes; k++) {
            wants_row[k] = 0; /* (hollow and unknown are never needed) */
        }
    }
    c[4] = !anything;
    if (!(cargo = ATTR(me, s_cargo))) {
        goto done;
    }
    for (Py_ssize_t k = 0; k < d->kinds; k++) {
        value = PyObject_GetItem(cargo, PyTuple_GET_ITEM(kinds, k));
        if (value == NULL) {
            goto done;
        }
        c[6 + d->kinds + k] = PyLong_AsLongLong(value);
        Py_CLEAR(value);
    }
    c[6 + 2 * d->kinds] = me_carried;
    if (!(asteroids = ATTR(game, s_asteroids))) {
        goto done;
    }
    if (at == Py_None) {
        c[7 + 2 * d->kinds] = -1;
        for (Py_ssize_t t = 0; t < targets; t++) {
            sel[t] = far;
        }
        result = 0;
        goto done;
    }
    if (!(asteroid = PyObject_GetItem(asteroids, at))) {
        goto done;
    }
    const Py_ssize_t degree = len_attr(asteroid, s_neighbours);
    if (degree < 0) {
        goto done;
    }
    c[7 + 2 * d->kinds] = degree;
    /* the rows of the settler's asteroid and of its exits' destinations */
    PyObject *here = PyDict_GetItemWithError(row_of, at);
    if (here == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_KeyError, "observe: the settler's asteroid has no row");
        }
        goto done;
    }
    rows[0] = offset + PyLong_AsLongLong(here);
    const Py_ssize_t n_exits = PyList_GET_SIZE(exits);
    if (n_exits > width - 1) {
        PyErr_SetString(PyExc_ValueError, "observe: more exits than slots");
        goto done;
    }
    const int gated = bool_attr(asteroid, s_gates);
    if (gated < 0) {
        goto done;
    }
    for (Py_ssize_t k = 0; k < n_exits; k++) {
        PyObject *pair = PyList_GET_ITEM(exits, k);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "observe: an exit must be a (target, destination) pair");
            goto done;
        }
        PyObject *dest = PyDict_GetItemWithError(row_of, PyTuple_GET_ITEM(pair, 1));
        if (dest == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_KeyError, "observe: an exit to an asteroid without a row");
            }
            goto done;
        }
        rows[1 + k] = offset + PyLong_AsLongLong(dest);
        if (gated) { /* (only a gate's exit leads elsewhere than its target) */
            const int same = PyObject_RichCompareBool(PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1), Py_EQ);
            if (same < 0) {
                goto done;
            }
            a->via[first + 1 + k] = !same;
        }
    }
    /* the moves' matrix for the links now and its static columns for the needs now (`Episode.encode`) */
    {
        PyObject *gone = ATTR(table, s_gone);
        if (gone == NULL) {
            goto done;
        }
        PyObject *gates_key;
        value = ATTR(game, s_gates);
        if (value == NULL) {
            Py_DECREF(gone);
            goto done;
        }
        const int any_gate = PyObject_IsTrue(value);
        Py_CLEAR(value);
        gates_key = any_gate ? PyObject_CallOneArg(gate_key, obs) : PyTuple_New(0); /* (no gate: no gate's exit) */
        if (any_gate < 0 || gates_key == NULL) {
            Py_DECREF(gone);
            Py_XDECREF(gates_key);
            goto done;
        }
        key = PyTuple_Pack(2, gone, gates_key);
        Py_DECREF(gone);
        Py_DECREF(gates_key);
        if (key == NULL || !(value = ATTR(hops, s_key))) {
            goto done;
        }
        const int same = PyObject_RichCompareBool(key, value, Py_EQ);
        Py_CLEAR(value);
        if (same < 0) {
            goto done;
        }
        if (!same) {
            value = PyObject_CallMethodOneArg(hops, s_sync, key);
            if (value == NULL) {
                goto done;
            }
            Py_CLEAR(value);
        }
        Py_CLEAR(key);
    }
    {
        if (!(wants = PyTuple_New(d->codes))) {
            goto done;
        }
        for (Py_ssize_t k = 0; k < d->codes; k++) {
            PyTuple_SET_ITEM(wants, k, PyBool_FromLong(wants_row[k]));
        }
        PyObject *version = ATTR(table, s_version);
        if (version == NULL) {
            goto done;
        }
        key = PyTuple_Pack(2, wants, version);
        Py_DECREF(version);
        if (key == NULL || !(value = ATTR(hops, s_static_key))) {
            goto done;
        }
        int same = PyObject_RichCompareBool(key, value, Py_EQ);
        Py_CLEAR(value);
        if (same < 0 || !(value = ATTR(hops, s_matrix))) {
            goto done;
        }
        same = same && value != Py_None;
        Py_CLEAR(value);
        if (!same) {
            PyObject *wanted = PyDict_GetItemWithError(wants_arrays, wants); /* borrowed */
            PyObject *codes = NULL, *shelters = NULL;
            if (wanted == NULL || !(codes = ATTR(table, s_codes)) || !(shelters = ATTR(table, s_shelters))) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_KeyError, "observe: no array of these wants");
                }
                Py_XDECREF(codes);
                goto done;
            }
            value = PyObject_CallMethodObjArgs(hops, s_static, key, wanted, codes, shelters, columns_by, NULL);
            Py_DECREF(codes);
            Py_DECREF(shelters);
            if (value == NULL) {
                goto done;
            }
            Py_CLEAR(value);
        }
        Py_CLEAR(key);
    }
    const long long count = int_attr(hops, s_n);
    if (count == -1 && PyErr_Occurred()) {
        goto done;
    }
    /* the guidance's targets: the others, the most units (among equals the first settler's in turn order), then
     * the static columns */
    int64_t most = far, best = -1;
    for (Py_ssize_t k = 0; k < n_loads; k++) {
        if (loads[k] > best) {
            best = loads[k];
            most = load_rows[k];
        }
    }
    for (Py_ssize_t t = 0; t < others_n; t++) {
        sel[t] = t < n_others ? others[t] : far;
    }
    sel[others_n] = most;
    sel[others_n + 1] = count;
    sel[others_n + 2] = count + 1;
    sel[others_n + 3] = count + 2;
    for (Py_ssize_t t = 0; t < targets; t++) {
        if (sel[t] < 0 || sel[t] >= size + 5) {
            PyErr_SetString(PyExc_ValueError, "observe: a guidance target out of the matrix");
            goto done;
        }
    }
    for (Py_ssize_t s = 0; s <= n_exits; s++) {
        if (rows[s] < offset || rows[s] >= offset + size) {
            PyErr_SetString(PyExc_ValueError, "observe: a row out of the game's block");
            goto done;
        }
    }
    /* storms forecast for the settler's asteroid and the exits' destinations */
    if (!(forecasts = ATTR(game, s_forecasts))) {
        goto done;
    }
    const int any_storm = PyObject_IsTrue(forecasts);
    if (any_storm < 0) {
        goto done;
    }
    if (any_storm) {
        if (!(storm_round = ATTR(game, s_storm_round))) {
            goto done;
        }
        for (Py_ssize_t k = 0; k <= n_exits; k++) {
            PyObject *aid = k == 0 ? at : PyTuple_GET_ITEM(PyList_GET_ITEM(exits, k - 1), 1);
            value = PyObject_CallOneArg(storm_round, aid);
            if (value == NULL) {
                goto done;
            }
            if (value != Py_None) {
                const long long storm = PyLong_AsLongLong(value);
                if (storm == -1 && PyErr_Occurred()) {
                    goto done;
                }
                a->storm[first + k] = 1;
                a->urgency[first + k] = 1.0 / (double)(1 + (storm - r > 0 ? storm - r : 0));
            }
            Py_CLEAR(value);
        }
    }
    result = 0;
done:
    Py_XDECREF(obs);
    Py_XDECREF(game);
    Py_XDECREF(table);
    Py_XDECREF(hops);
    Py_XDECREF(exits);
    Py_XDECREF(on);
    Py_XDECREF(need);
    Py_XDECREF(row_of);
    Py_XDECREF(team);
    Py_XDECREF(me);
    Py_XDECREF(at);
    Py_XDECREF(cargo);
    Py_XDECREF(value);
    Py_XDECREF(asteroid);
    Py_XDECREF(wants);
    Py_XDECREF(key);
    Py_XDECREF(forecasts);
    Py_XDECREF(storm_round);
    Py_XDECREF(asteroids);
    return result;
}

enum { OBS, MASKS, FEATURES, NUMBERS_, MATRICES, SAFE, SCALED, ROWS, SEL, ROUNDS, WANTS, COUNTS, VIA, STORM, URGENCY,
       BUFFERS };

/* observe(episodes, settlers, kinds, gate_key, wants_arrays, columns_by, move, fixed_index, varied, fixed_actions,
 *         observations, masks, features, numbers, matrices, safe, scaled,
 *         rows, sel, rounds, wants, counts, via, storm, urgency,   (scratch, written here)
 *         n, width, size, others, n_actions, max_rounds, codes, kinds, asteroid_features, guide_at,
 *         global_features, gate_limit, win_target, cargo_limit, counts_width)
 * Every row's observation and mask (`BatchEnv._observe`): the loop over the games reads each game's team and
 * exits, calls the engine for the legal actions, and the rows are then filled from the batch's arrays. */
static PyObject *observe(PyObject *self, PyObject *args) {
    PyObject *episodes, *settlers, *kinds, *gate_key, *wants_arrays, *columns_by;
    PyObject *objs[BUFFERS];
    Shape d;
    Masking masking;
    if (!PyArg_ParseTuple(args, "O!O!O!OO!OOO!O!nOOOOOOOOOOOOOOOnnnnnnnnnnnnnnn", &PyList_Type, &episodes,
                          &PyList_Type, &settlers, &PyTuple_Type, &kinds, &gate_key, &PyDict_Type, &wants_arrays,
                          &columns_by, &masking.move, &PyDict_Type, &masking.fixed_index, &PyDict_Type,
                          &masking.varied, &masking.fixed_actions,
                          &objs[OBS], &objs[MASKS], &objs[FEATURES], &objs[NUMBERS_], &objs[MATRICES], &objs[SAFE],
                          &objs[SCALED], &objs[ROWS], &objs[SEL], &objs[ROUNDS], &objs[WANTS], &objs[COUNTS],
                          &objs[VIA], &objs[STORM], &objs[URGENCY], &d.n, &d.width, &d.size, &d.others,
                          &d.n_actions, &d.max_rounds, &d.codes, &d.kinds, &d.af, &d.guide_at, &d.globals,
                          &d.gate_limit, &d.win_target, &d.cargo_limit, &d.counts_width)) {
        return NULL;
    }
    static const Py_ssize_t itemsize[BUFFERS] = {4, 1, 4, 8, 1, 4, 4, 8, 8, 8, 1, 8, 1, 1, 8};
    static const int writable[BUFFERS] = {1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
    static const char *names[BUFFERS] = {"observations", "masks", "features", "numbers", "matrices", "safe",
                                         "scaled", "rows", "sel", "rounds", "wants", "counts", "via", "storm",
                                         "urgency"};
    Held h[BUFFERS];
    memset(h, 0, sizeof h);
    for (int b = 0; b < BUFFERS; b++) {
        if (hold(objs[b], &h[b], itemsize[b], writable[b], names[b]) < 0) {
            release(h, BUFFERS);
            return NULL;
        }
    }
    const Py_ssize_t n = d.n, size = d.size, width = d.width, stride = size + 5, pad = n * size;
    const char *wrong = NULL;
    if (n < 1 || width < 1 || width > 64 || size < 1 || d.others < 1 || d.others > 64 || d.af < d.guide_at + 10 ||
        d.af < 14 + d.codes || d.codes < d.kinds || d.codes > 64 || d.counts_width < 8 + 2 * d.kinds ||
        d.globals < 7 + 2 * d.kinds || PyList_GET_SIZE(episodes) != n || PyList_GET_SIZE(settlers) != n ||
        PyTuple_GET_SIZE(kinds) != d.kinds) {
        wrong = "the batch's dimensions";
    } else if (items(&h[OBS]) != n * (d.globals + width * d.af) || items(&h[MASKS]) != n * d.n_actions) {
        wrong = "observations and masks";
    } else if (items(&h[FEATURES]) != (pad + 1) * d.af || items(&h[NUMBERS_]) != (pad + 1) * 5) {
        wrong = "features and numbers";
    } else if (items(&h[MATRICES]) != n * size * stride) {
        wrong = "matrices";
    } else if (items(&h[SAFE]) != d.codes * 3 || items(&h[SCALED]) != 256) {
        wrong = "safe and scaled";
    } else if (items(&h[ROWS]) != n * width || items(&h[VIA]) != n * width || items(&h[STORM]) != n * width ||
               items(&h[URGENCY]) != n * width || items(&h[SEL]) != n * (d.others + 4) ||
               items(&h[ROUNDS]) != n || items(&h[WANTS]) != n * d.codes ||
               items(&h[COUNTS]) != n * d.counts_width) {
        wrong = "the scratch arrays";
    }
    if (wrong != NULL) {
        release(h, BUFFERS);
        PyErr_Format(PyExc_ValueError, "observe: %s do not match the batch's shape", wrong);
        return NULL;
    }
    Arrays a = {
        .out = (float *)h[OBS].view.buf, .features = (const float *)h[FEATURES].view.buf,
        .numbers = (const int64_t *)h[NUMBERS_].view.buf, .matrices = (const uint8_t *)h[MATRICES].view.buf,
        .safe = (const float *)h[SAFE].view.buf, .scaled = (const float *)h[SCALED].view.buf,
        .rows = (int64_t *)h[ROWS].view.buf, .sel = (int64_t *)h[SEL].view.buf,
        .rounds = (int64_t *)h[ROUNDS].view.buf, .counts = (int64_t *)h[COUNTS].view.buf,
        .wants = (int8_t *)h[WANTS].view.buf, .via = (uint8_t *)h[VIA].view.buf, .storm = (uint8_t *)h[STORM].view.buf,
        .urgency = (double *)h[URGENCY].view.buf,
    };
    memset(a.via, 0, (size_t)(n * width));
    memset(a.storm, 0, (size_t)(n * width));
    int8_t *masks = (int8_t *)h[MASKS].view.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (gather_game(&d, &a, masks + i * d.n_actions, i, PyList_GET_ITEM(episodes, i),
                        PyList_GET_ITEM(settlers, i), kinds, gate_key, wants_arrays, columns_by, &masking) < 0) {
            release(h, BUFFERS);
            return NULL;
        }
    }
    fill_rows(&d, &a);
    release(h, BUFFERS);
    Py_RETURN_NONE;
}


/* What `table.BeltTable.refresh` does for a table kept in a batch's arrays, the table given whole: its rows of
 * `ids` rewritten (`refresh_rows`) and its counts of changes and of asteroids gone brought up to date. */
static int refresh_table(PyObject *table, PyObject *ids, PyObject *game, PyObject *code_of, Py_ssize_t unknown) {
    PyObject *names[12] = {s_row, s_settlers_, s_core, s_orbit_list, s_pinned_near, s_sheltered, s_exists_list,
                           s_codes, s_shelters, s_features, s_numbers, s_asteroids};
    PyObject *values[12] = {NULL};
    int result = -1;
    for (int k = 0; k < 12; k++) {
        values[k] = ATTR(k == 11 ? game : table, names[k]);
        if (values[k] == NULL) {
            goto done;
        }
    }
    long long counted[2];
    if (refresh_rows(ids, values[11], values[0], values[1], values[2], values[3], values[4], values[5], values[6],
                     values[7], values[8], values[9], values[10], code_of, unknown, &counted[0], &counted[1]) < 0) {
        goto done;
    }
    PyObject *fields[2] = {s_version, s_gone};
    for (int k = 0; k < 2; k++) {
        if (counted[k] == 0) {
            continue; /* (most steps change neither) */
        }
        PyObject *was = ATTR(table, fields[k]);
        PyObject *by = was == NULL ? NULL : PyLong_FromLongLong(counted[k]);
        PyObject *now = by == NULL ? NULL : PyNumber_Add(was, by);
        Py_XDECREF(was);
        Py_XDECREF(by);
        if (now == NULL || PyObject_SetAttr(table, fields[k], now) < 0) {
            Py_XDECREF(now);
            goto done;
        }
        Py_DECREF(now);
    }
    result = 0;
done:
    for (int k = 0; k < 12; k++) {
        Py_XDECREF(values[k]);
    }
    return result;
}

/* advance(episode, settler, index, fixed_actions, refused, wait, died, kinds, code_of, unknown, win_target,
 *         shaping, death, illegal, win, loss, max_rounds) -> (reward, terminated, truncated)
 * `Episode.advance` for a game with no bots in its seats and its table in a batch's arrays (`rl.batch`): the
 * action at `index` (`wait` when the rules refuse it), the table's rows of what the engine touched, the team's
 * sums (`Episode._moved`) and the reward (`Episode._judged`), the same float64 operations in the same order. */
/* The rules of a step's reward and the engine's classes a step needs (`advance`'s arguments). */
typedef struct {
    PyObject *refused, *wait_type, *died, *kinds, *code_of, *decode, *move;
    Py_ssize_t fixed, unknown, win_target, max_rounds, slots;
    double shaping, death, illegal_reward, win, loss;
} Stepping;

static int parse_stepping(PyObject *args, Py_ssize_t at, Stepping *r) {
    PyObject *rest = PyTuple_GetSlice(args, at, PyTuple_GET_SIZE(args));
    if (rest == NULL) {
        return -1;
    }
    const int ok = PyArg_ParseTuple(rest, "nOOOO!O!nndddddnO!On", &r->fixed, &r->refused, &r->wait_type, &r->died,
                                    &PyTuple_Type, &r->kinds, &PyDict_Type, &r->code_of, &r->unknown, &r->win_target,
                                    &r->shaping, &r->death, &r->illegal_reward, &r->win, &r->loss, &r->max_rounds,
                                    &PyTuple_Type, &r->decode, &r->move, &r->slots);
    Py_DECREF(rest);
    if (ok && PyTuple_GET_SIZE(r->decode) != r->fixed) {
        PyErr_SetString(PyExc_ValueError, "advance: the decoding table must have an entry per fixed action");
        return -1;
    }
    for (Py_ssize_t k = 0; ok && k < r->fixed; k++) {
        PyObject *entry = PyTuple_GET_ITEM(r->decode, k);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 3 || !PyLong_Check(PyTuple_GET_ITEM(entry, 1)) ||
            !PyLong_Check(PyTuple_GET_ITEM(entry, 2))) {
            PyErr_SetString(PyExc_TypeError, "advance: a decoding entry must be (record, over, offset)");
            return -1;
        }
    }
    if (ok && PyTuple_GET_SIZE(r->kinds) > 16) {
        PyErr_SetString(PyExc_ValueError, "advance: too many kinds");
        return -1;
    }
    return ok ? 0 : -1;
}

/* One game's step (see `advance`): its reward and flags, 0; or -1 with an exception set. */
static int advance_game(PyObject *episode, PyObject *settler, Py_ssize_t index, const Stepping *r, double *reward_out,
                        int *terminated_out, int *truncated_out) {
    PyObject *refused = r->refused, *wait_type = r->wait_type, *died = r->died, *kinds = r->kinds,
             *code_of = r->code_of;
    const Py_ssize_t fixed = r->fixed, unknown = r->unknown, win_target = r->win_target, max_rounds = r->max_rounds;
    const double shaping = r->shaping, death = r->death, illegal_reward = r->illegal_reward, win = r->win,
                 loss = r->loss;
    int out = -1;
    PyObject *game = NULL, *obs = NULL, *exits = NULL, *action = NULL, *events = NULL,
             *table = NULL, *touched = NULL, *team = NULL, *need = NULL, *status = NULL, *value = NULL;
    const Py_ssize_t n_kinds = PyTuple_GET_SIZE(kinds);
    long long load[16] = {0};
    if (!(value = ATTR(episode, s_potential))) {
        goto done;
    }
    const double before = PyFloat_AsDouble(value);
    Py_CLEAR(value);
    if (before == -1.0 && PyErr_Occurred()) {
        goto done;
    }
    if (!(game = ATTR(episode, s_game)) || !(obs = ATTR(episode, s_obs))) {
        goto done;
    }
    /* the action at `index` (`Encoder.action`): a fixed index's record, a move through an exit slot, else wait */
    if (index >= 0 && index < fixed) {
        PyObject *entry = PyTuple_GET_ITEM(r->decode, index); /* (record, over: 0 none, 1 kinds, 2 gates, offset) */
        PyObject *record = PyTuple_GET_ITEM(entry, 0);
        const long over = PyLong_AsLong(PyTuple_GET_ITEM(entry, 1));
        const Py_ssize_t offset = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 2));
        if (over == 0) {
            action = PyObject_CallOneArg(record, settler);
        } else if (over == 1) {
            action = offset < n_kinds ? PyObject_CallFunctionObjArgs(record, settler, PyTuple_GET_ITEM(kinds, offset),
                                                                     NULL)
                                      : NULL;
            if (action == NULL && !PyErr_Occurred()) {
                PyErr_SetString(PyExc_IndexError, "advance: a kind out of range");
            }
        } else {
            PyObject *me = PyObject_CallMethodOneArg(obs, s_settler, settler);
            PyObject *carried = me == NULL ? NULL : ATTR(me, s_gates);
            Py_XDECREF(me);
            if (carried == NULL) {
                goto done;
            }
            const Py_ssize_t held = PyObject_Length(carried);
            if (held < 0) {
                Py_DECREF(carried);
                goto done;
            }
            if (offset < held) {
                PyObject *gate = PySequence_GetItem(carried, offset);
                action = gate == NULL ? NULL : PyObject_CallFunctionObjArgs(record, settler, gate, NULL);
                Py_XDECREF(gate);
            } else {
                action = PyObject_CallOneArg(wait_type, settler);
            }
            Py_DECREF(carried);
        }
    } else if (index >= fixed && index < fixed + r->slots) {
        /* the exits the observation showed (`Episode.exits`' cache), else worked out again */
        PyObject *cached = ATTR(episode, s_exits_cache);
        if (cached == NULL) {
            goto done;
        }
        int hit = PyTuple_Check(cached) && PyTuple_GET_SIZE(cached) == 2;
        if (hit) {
            hit = PyObject_RichCompareBool(PyTuple_GET_ITEM(cached, 0), settler, Py_EQ);
        }
        if (hit > 0) {
            exits = Py_NewRef(PyTuple_GET_ITEM(cached, 1));
        } else if (hit == 0) {
            exits = PyObject_CallMethodOneArg(episode, s_exits, settler);
        }
        Py_DECREF(cached);
        if (exits == NULL) {
            goto done;
        }
        const Py_ssize_t i = index - fixed;
        const Py_ssize_t count = PyObject_Length(exits);
        if (count < 0) {
            goto done;
        }
        if (i < count) {
            PyObject *pair = PySequence_GetItem(exits, i);
            PyObject *target = pair == NULL ? NULL : PySequence_GetItem(pair, 0);
            Py_XDECREF(pair);
            action = target == NULL ? NULL : PyObject_CallFunctionObjArgs(r->move, settler, target, NULL);
            Py_XDECREF(target);
        } else {
            action = PyObject_CallOneArg(wait_type, settler);
        }
    } else {
        action = PyObject_CallOneArg(wait_type, settler);
    }
    if (action == NULL) {
        goto done;
    }
    int illegal = 0;
    events = PyObject_CallMethodOneArg(game, s_apply, action); /* checks it first, and changes nothing when it refuses */
    if (events == NULL) {
        if (!PyErr_ExceptionMatches(refused)) {
            goto done;
        }
        PyErr_Clear();
        illegal = 1;
        Py_CLEAR(action);
        if (!(action = PyObject_CallOneArg(wait_type, settler)) ||
            !(events = PyObject_CallMethodOneArg(game, s_apply, action))) {
            goto done;
        }
    }
    /* the table's rows of what the step touched, never the whole belt */
    if (!(table = ATTR(episode, s_table)) || !(touched = PyObject_CallMethodNoArgs(game, s_take_touched))) {
        goto done;
    }
    if (refresh_table(table, touched, game, code_of, unknown) < 0) {
        goto done;
    }
    /* the team's sums (`Episode._moved`): the same unless a settler was touched */
    if (PyObject_SetAttr(episode, s_exits_cache, Py_None) < 0 || !(team = ATTR(game, s_settlers_))) {
        goto done;
    }
    if (!PyDict_Check(team)) {
        PyErr_SetString(PyExc_TypeError, "advance: the team must be a dict");
        goto done;
    }
    int moved = 0;
    {
        Py_ssize_t pos = 0;
        PyObject *id, *s;
        while (!moved && PyDict_Next(team, &pos, &id, &s)) {
            moved = PySequence_Contains(touched, id);
            if (moved < 0) {
                goto done;
            }
        }
    }
    double potential = before;
    if (moved) {
        Py_ssize_t pos = 0;
        PyObject *id, *s;
        while (PyDict_Next(team, &pos, &id, &s)) {
            const int alive = bool_attr(s, s_alive);
            if (alive < 0) {
                goto done;
            }
            if (!alive) {
                continue;
            }
            PyObject *cargo = ATTR(s, s_cargo);
            if (cargo == NULL) {
                goto done;
            }
            for (Py_ssize_t k = 0; k < n_kinds; k++) {
                PyObject *units = PyObject_GetItem(cargo, PyTuple_GET_ITEM(kinds, k));
                if (units == NULL) {
                    Py_DECREF(cargo);
                    goto done;
                }
                load[k] += PyLong_AsLongLong(units);
                Py_DECREF(units);
            }
            Py_DECREF(cargo);
            if (PyErr_Occurred()) {
                goto done;
            }
        }
        long long sum = 0;
        if (!(need = PyDict_New())) {
            goto done;
        }
        for (Py_ssize_t k = 0; k < n_kinds; k++) {
            sum += load[k] < win_target ? load[k] : win_target;
            PyObject *units = PyLong_FromLongLong(load[k] < win_target ? win_target - load[k] : 0);
            if (units == NULL || PyDict_SetItem(need, PyTuple_GET_ITEM(kinds, k), units) < 0) {
                Py_XDECREF(units);
                goto done;
            }
            Py_DECREF(units);
        }
        potential = (double)sum;
        if (!(value = PyFloat_FromDouble(potential)) || PyObject_SetAttr(episode, s_potential, value) < 0 ||
            PyObject_SetAttr(episode, s_need, need) < 0) {
            goto done;
        }
        Py_CLEAR(value);
    }
    /* the reward (`Episode._judged`) */
    Py_ssize_t deaths = 0;
    {
        PyObject *iterator = PyObject_GetIter(events), *event;
        if (iterator == NULL) {
            goto done;
        }
        while ((event = PyIter_Next(iterator)) != NULL) {
            const int is = PyObject_IsInstance(event, died);
            Py_DECREF(event);
            if (is < 0) {
                Py_DECREF(iterator);
                goto done;
            }
            deaths += is;
        }
        Py_DECREF(iterator);
        if (PyErr_Occurred()) {
            goto done;
        }
    }
    double reward = shaping * (potential - before) + death * (double)deaths;
    if (illegal) {
        reward += illegal_reward;
    }
    if (!(status = ATTR(game, s_status))) {
        goto done;
    }
    const int won = PyObject_RichCompareBool(status, s_won, Py_EQ);
    const int lost = PyObject_RichCompareBool(status, s_lost, Py_EQ);
    const int running = PyObject_RichCompareBool(status, s_running, Py_EQ);
    if (won < 0 || lost < 0 || running < 0) {
        goto done;
    }
    if (won) {
        reward += win;
    } else if (lost) {
        reward += loss;
    }
    int truncated = 0;
    if (running) {
        const long long r = int_attr(game, s_round);
        if (r == -1 && PyErr_Occurred()) {
            goto done;
        }
        truncated = r > max_rounds;
    }
    *reward_out = reward;
    *terminated_out = !running;
    *truncated_out = truncated;
    out = 0;
done:
    Py_XDECREF(game);
    Py_XDECREF(obs);
    Py_XDECREF(exits);
    Py_XDECREF(action);
    Py_XDECREF(events);
    Py_XDECREF(table);
    Py_XDECREF(touched);
    Py_XDECREF(team);
    Py_XDECREF(need);
    Py_XDECREF(status);
    Py_XDECREF(value);
    return out;
}

/* step(episodes, settlers, picks, eligible, rewards, terminated, truncated, <advance's rules from fixed_actions>)
 * -> the games that ended, as (row, settler) pairs
 * `BatchEnv.step`'s loop: each row's settler takes its action, in C (`advance_game`) where `eligible[i]` (no bots
 * in the seats, the table in the batch's arrays), else through `Episode.advance`; the rewards and flags written
 * into the batch's arrays, and each row's settler moved on to the one whose turn it is (the one that acted when the
 * game ended). The games that ended are left to the caller to start again, in order. */
static PyObject *step(PyObject *self, PyObject *args) {
    PyObject *episodes, *settlers, *picks, *eligible, *objs[3];
    Stepping r;
    if (PyTuple_GET_SIZE(args) < 7) {
        PyErr_SetString(PyExc_TypeError, "step: too few arguments");
        return NULL;
    }
    PyObject *head = PyTuple_GetSlice(args, 0, 7);
    if (head == NULL) {
        return NULL;
    }
    const int ok = PyArg_ParseTuple(head, "O!O!O!O!OOO", &PyList_Type, &episodes, &PyList_Type, &settlers,
                                    &PyList_Type, &picks, &PyList_Type, &eligible, &objs[0], &objs[1], &objs[2]);
    Py_DECREF(head);
    if (!ok || parse_stepping(args, 7, &r) < 0) {
        return NULL;
    }
    const Py_ssize_t n = PyList_GET_SIZE(episodes);
    Held h[3];
    memset(h, 0, sizeof h);
    if (hold(objs[0], &h[0], 4, 1, "rewards") < 0 || hold(objs[1], &h[1], 1, 1, "terminated") < 0 ||
        hold(objs[2], &h[2], 1, 1, "truncated") < 0) {
        release(h, 3);
        return NULL;
    }
    if (PyList_GET_SIZE(settlers) != n || PyList_GET_SIZE(picks) != n || PyList_GET_SIZE(eligible) != n ||
        items(&h[0]) != n || items(&h[1]) != n || items(&h[2]) != n) {
        release(h, 3);
        PyErr_SetString(PyExc_ValueError, "step: the batch's lists and arrays differ in length");
        return NULL;
    }
    float *rewards = (float *)h[0].view.buf;
    uint8_t *terminated = (uint8_t *)h[1].view.buf, *truncated = (uint8_t *)h[2].view.buf;
    PyObject *ended = PyList_New(0);
    if (ended == NULL) {
        release(h, 3);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *episode = PyList_GET_ITEM(episodes, i), *settler = PyList_GET_ITEM(settlers, i);
        double reward;
        int done_, cut;
        const Py_ssize_t index = PyLong_AsSsize_t(PyList_GET_ITEM(picks, i));
        if (index == -1 && PyErr_Occurred()) {
            goto failed;
        }
        if (PyObject_IsTrue(PyList_GET_ITEM(eligible, i))) {
            if (advance_game(episode, settler, index, &r, &reward, &done_, &cut) < 0) {
                goto failed;
            }
        } else {
            PyObject *result = PyObject_CallMethod(episode, "advance", "On", settler, index);
            if (result == NULL) {
                goto failed;
            }
            int parsed = PyArg_ParseTuple(result, "dpp", &reward, &done_, &cut);
            Py_DECREF(result);
            if (!parsed) {
                goto failed;
            }
        }
        rewards[i] = (float)reward;
        terminated[i] = (uint8_t)done_;
        truncated[i] = (uint8_t)cut;
        /* the settler whose turn it is next, as `TeamEnv` observes it (the one that acted when the game ended in
         * the bots' turns) */
        PyObject *game = ATTR(episode, s_game);
        PyObject *turn = game == NULL ? NULL : ATTR(game, s_turn);
        PyObject *learners = ATTR(episode, s_learners);
        Py_XDECREF(game);
        if (turn == NULL || learners == NULL) {
            Py_XDECREF(turn);
            Py_XDECREF(learners);
            goto failed;
        }
        const int theirs = PySequence_Contains(learners, turn);
        Py_DECREF(learners);
        if (theirs < 0) {
            Py_DECREF(turn);
            goto failed;
        }
        PyObject *next = theirs ? turn : settler;
        Py_INCREF(next);
        Py_DECREF(turn);
        if (done_ || cut) {
            PyObject *pair = Py_BuildValue("(nN)", i, next);
            if (pair == NULL || PyList_Append(ended, pair) < 0) {
                Py_XDECREF(pair);
                goto failed;
            }
            Py_DECREF(pair);
        } else if (PyList_SetItem(settlers, i, next) < 0) {
            goto failed;
        }
    }
    release(h, 3);
    return ended;
failed:
    release(h, 3);
    Py_DECREF(ended);
    return NULL;
}


/* Every row of a matrix of moves (rows `stride` bytes apart): breadth-first from each of the `n` asteroids over the
 * directed links `src[k] -> dst[k]` (checked to be in the belt), never deeper than `limit`, `far` beyond. 0, or -1
 * when memory ran out. */
static int breadth_first(uint8_t *matrix, Py_ssize_t stride, Py_ssize_t n, const int64_t *src, const int64_t *dst,
                         Py_ssize_t edges, Py_ssize_t limit, Py_ssize_t far) {
    /* the links as rows of a sparse matrix: each asteroid's targets, in one array */
    Py_ssize_t *start = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    Py_ssize_t *target = PyMem_Malloc((size_t)(edges > 0 ? edges : 1) * sizeof(Py_ssize_t));
    Py_ssize_t *queue = PyMem_Malloc((size_t)n * sizeof(Py_ssize_t));
    Py_ssize_t *filled = PyMem_Calloc((size_t)n, sizeof(Py_ssize_t));
    if (start == NULL || target == NULL || queue == NULL || filled == NULL) {
        PyMem_Free(start);
        PyMem_Free(target);
        PyMem_Free(queue);
        PyMem_Free(filled);
        return -1;
    }
    for (Py_ssize_t k = 0; k < edges; k++) {
        start[src[k] + 1]++;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        start[i + 1] += start[i];
    }
    for (Py_ssize_t k = 0; k < edges; k++) {
        target[start[src[k]] + filled[src[k]]++] = (Py_ssize_t)dst[k];
    }
    for (Py_ssize_t s = 0; s < n; s++) {
        uint8_t *row = matrix + s * stride;
        memset(row, (int)far, (size_t)n);
        row[s] = 0;
        Py_ssize_t head = 0, tail = 0;
        queue[tail++] = s;
        while (head < tail) {
            const Py_ssize_t at = queue[head++];
            const uint8_t next = (uint8_t)(row[at] + 1);
            if (next > limit) {
                continue;
            }
            for (Py_ssize_t k = start[at]; k < start[at + 1]; k++) {
                const Py_ssize_t to = target[k];
                if (row[to] == far) {
                    row[to] = next;
                    queue[tail++] = to;
                }
            }
        }
    }
    PyMem_Free(start);
    PyMem_Free(target);
    PyMem_Free(queue);
    PyMem_Free(filled);
    return 0;
}

/* A growing array of int64. */
typedef struct {
    int64_t *items;
    Py_ssize_t count, room;
} Ints;

static int push(Ints *a, int64_t value) {
    if (a->count == a->room) {
        const Py_ssize_t room = a->room ? 2 * a->room : 256;
        int64_t *items = PyMem_Realloc(a->items, (size_t)room * sizeof(int64_t));
        if (items == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        a->items = items;
        a->room = room;
    }
    a->items[a->count++] = value;
    return 0;
}

/* The creation index of the asteroid `aid` of `asteroids`, which must be there still (-1 and an exception). */
static Py_ssize_t index_of(PyObject *asteroids, PyObject *aid) {
    PyObject *a = PyObject_GetItem(asteroids, aid);
    if (a == NULL) {
        return -1;
    }
    const int there = bool_attr(a, s_exists);
    const Py_ssize_t index = there > 0 ? (Py_ssize_t)int_attr(a, s_index) : -1;
    Py_DECREF(a);
    if (there == 0) {
        PyErr_SetObject(PyExc_KeyError, aid);
    }
    return index;
}

/* moves_of(matrix, asteroids, gate_exits, limit, far): `moves` over the links of the engine's asteroids as players
 * see them (`hops.Hops._links`): each existing asteroid's neighbours, and the active gates' exits (`gate_exits`:
 * `Observation.gate_exit_map()`). */
static PyObject *moves_of(PyObject *self, PyObject *args) {
    PyObject *matrix_obj, *asteroids, *gate_exits;
    Py_ssize_t limit, far;
    if (!PyArg_ParseTuple(args, "OO!O!nn", &matrix_obj, &PyDict_Type, &asteroids, &PyDict_Type, &gate_exits, &limit,
                          &far)) {
        return NULL;
    }
    Held h[1];
    memset(h, 0, sizeof h);
    if (hold_as(matrix_obj, &h[0], 1, PyBUF_STRIDES | PyBUF_WRITABLE, "matrix") < 0) {
        release(h, 1);
        return NULL;
    }
    const Py_ssize_t n = h[0].view.ndim == 2 ? h[0].view.shape[0] : -1;
    if (n < 1 || h[0].view.shape[1] < n || h[0].view.strides[1] != 1 || h[0].view.strides[0] < h[0].view.shape[1] ||
        far < 0 || far > 255 || limit < 0 || limit >= far) {
        release(h, 1);
        PyErr_SetString(PyExc_ValueError, "moves_of: the matrix does not match");
        return NULL;
    }
    Ints src = {NULL, 0, 0}, dst = {NULL, 0, 0};
    Py_ssize_t pos = 0;
    PyObject *aid, *a;
    while (PyDict_Next(asteroids, &pos, &aid, &a)) {
        const int there = bool_attr(a, s_exists);
        if (there < 0) {
            goto failed;
        }
        if (!there) {
            continue;
        }
        const long long i = int_attr(a, s_index);
        PyObject *neighbours = ATTR(a, s_neighbours);
        if ((i == -1 && PyErr_Occurred()) || neighbours == NULL) {
            Py_XDECREF(neighbours);
            goto failed;
        }
        if (!PyDict_Check(neighbours)) {
            Py_DECREF(neighbours);
            PyErr_SetString(PyExc_TypeError, "moves_of: an asteroid's neighbours must be a dict");
            goto failed;
        }
        Py_ssize_t at = 0;
        PyObject *other, *unused;
        while (PyDict_Next(neighbours, &at, &other, &unused)) {
            const Py_ssize_t j = index_of(asteroids, other);
            if (j < 0 || push(&src, i) < 0 || push(&dst, j) < 0) {
                Py_DECREF(neighbours);
                goto failed;
            }
        }
        Py_DECREF(neighbours);
    }
    pos = 0;
    PyObject *exits;
    while (PyDict_Next(gate_exits, &pos, &aid, &exits)) {
        const Py_ssize_t i = index_of(asteroids, aid);
        if (i < 0) {
            goto failed;
        }
        PyObject *iterator = PyObject_GetIter(exits), *pair;
        if (iterator == NULL) {
            goto failed;
        }
        while ((pair = PyIter_Next(iterator)) != NULL) {
            const Py_ssize_t j = PyTuple_Check(pair) && PyTuple_GET_SIZE(pair) == 2
                                     ? index_of(asteroids, PyTuple_GET_ITEM(pair, 1)) : -1;
            Py_DECREF(pair);
            if (j < 0 || push(&src, i) < 0 || push(&dst, j) < 0) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_TypeError, "moves_of: a gate's exit must be a (gate, destination) pair");
                }
                Py_DECREF(iterator);
                goto failed;
            }
        }
        Py_DECREF(iterator);
        if (PyErr_Occurred()) {
            goto failed;
        }
    }
    for (Py_ssize_t k = 0; k < src.count; k++) {
        if (src.items[k] < 0 || src.items[k] >= n || dst.items[k] < 0 || dst.items[k] >= n) {
            PyErr_SetString(PyExc_ValueError, "moves_of: a link out of the matrix");
            goto failed;
        }
    }
    if (breadth_first((uint8_t *)h[0].view.buf, h[0].view.strides[0], n, src.items, dst.items, src.count, limit,
                      far) < 0) {
        PyErr_NoMemory();
        goto failed;
    }
    PyMem_Free(src.items);
    PyMem_Free(dst.items);
    release(h, 1);
    Py_RETURN_NONE;
failed:
    PyMem_Free(src.items);
    PyMem_Free(dst.items);
    release(h, 1);
    return NULL;
}

static PyMethodDef methods[] = {
    {"observe", observe, METH_VARARGS, "Every row's observation and mask of a batch (see the source)."},
    {"static_columns", static_columns, METH_VARARGS, "A game's three static columns of moves (see the source)."},
    {"refresh", refresh, METH_VARARGS, "A batch's table rows of what the engine touched (see the source)."},
    {"step", step, METH_VARARGS, "Every game's step of a batch (`BatchEnv.step`; see the source)."},
    {"moves_of", moves_of, METH_VARARGS, "Every row of a game's matrix of moves, from its asteroids."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_batch", "The batched environment's observations in C (rl._native).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__batch(void) {
    struct {
        PyObject **name;
        const char *text;
    } names[] = {{&s_core, "core"},         {&s_surveyed, "surveyed"}, {&s_mantle, "mantle"},
                 {&s_shelter, "shelter"},   {&s_exists, "exists"},     {&s_orbit, "orbit"},
                 {&s_pinned, "pinned"},     {&s_settlers, "settlers"}, {&s_robots, "robots"},
                 {&s_ufos, "ufos"},         {&s_neighbours, "neighbours"}, {&s_period, "period"},
                 {&s_window, "window"},     {&s_phase, "phase"},       {&s_near, "near"},
                 {&s_obs, "_obs"},          {&s_game, "game"},         {&s_table, "table"},
                 {&s_hops, "hops"},         {&s_need, "_need"},        {&s_row, "row"},
                 {&s_exits, "exits"},
                 {&s_alive, "alive"},       {&s_at, "at"},             {&s_carry_total, "carry_total"},
                 {&s_cargo, "cargo"},       {&s_gates, "gates"},       {&s_round, "round"},
                 {&s_asteroids, "asteroids"}, {&s_forecasts, "forecasts"}, {&s_storm_round, "storm_round"},
                 {&s_gone, "gone"},         {&s_version, "version"},   {&s_key, "_key"},
                 {&s_static_key, "_static_key"}, {&s_matrix, "_matrix"}, {&s_sync, "sync"},
                 {&s_static, "static"},     {&s_n, "n"},               {&s_codes, "codes"},
                 {&s_shelters, "shelters"}, {&s_settlers_, "settlers"},
                 {&s_potential, "_potential"}, {&s_exits_cache, "_exits"}, {&s_apply, "apply"},
                 {&s_take_touched, "take_touched"}, {&s_status, "status"},
                 {&s_features, "features"}, {&s_numbers, "numbers"}, {&s_orbit_list, "orbit"},
                 {&s_pinned_near, "pinned_near"}, {&s_sheltered, "_sheltered"}, {&s_exists_list, "exists"},
                 {&s_running, "running"},   {&s_won, "won"},
                 {&s_lost, "lost"},         {&s_legal_actions, "legal_actions"},
                 {&s_index, "index"},       {&s_settler, "settler"},   {&s_turn, "turn"},
                 {&s_learners, "learners"}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        *names[k].name = PyUnicode_InternFromString(names[k].text);
        if (*names[k].name == NULL) {
            return NULL;
        }
    }
    return PyModule_Create(&module);
}
