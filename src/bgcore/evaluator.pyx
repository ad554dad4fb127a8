"""Evaluators: a network per position class, and exact values where they are known.

A position is in one of three classes (``CLASSES``):

``contact``
    A checker can still be hit: some checker of one side has not yet passed
    every checker of the other (or a checker is on the bar).
``race``
    No contact is left.
``exact``
    A race in which both sides have all their checkers home, when an exact
    bear-off database is attached; its values come from the database, not a
    network.  Without one, such positions are races.

An :class:`Evaluator` holds the contact network, the race network (the same
object when it is made from a single-network file, so that every class uses
it and results are those of the network alone) and optionally the database.
Lookahead, rollouts, players and training take an evaluator wherever they take
a network.  One ``.npz`` file holds an evaluator's networks
(:meth:`Evaluator.save`); :func:`load_evaluator` reads it, or a single-network
file.
"""

import json
from pathlib import Path

import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

from bgengine._types cimport int32_t, real_t
from bgengine.board cimport board_t
from bgengine.memory cimport zeroed_or_raise
from bgengine.network cimport (Network, net_t, netbuf_t, net_forward_sparse, net_frozen_size,
                               net_freeze)
from bgengine.encoders cimport encode_sparse, MAX_INPUTS
from bgengine.bearoff cimport BearoffDatabase, bearoff_exact1, bearoff_exact4, bearoff_exact5
from bgengine.racegammon cimport RaceGammonTables, rg_refine5

from bgengine.board import validate_boards
from bgengine.encoders import encoder_id
from bgengine.fileio import atomic_write
from bgengine.network import FORMAT_VERSION, network_from_parts, network_meta, read_archive

cnp.import_array()

#: Class names by id (``Evaluator.classify`` returns the ids).
CLASSES = ("contact", "race", "exact")


cdef void ev_static(const evaluator_t* ev, const board_t* b, netbuf_t* buf,
                    real_t* out) noexcept nogil:
    cdef int32_t idx[MAX_INPUTS]
    cdef real_t val[MAX_INPUTS]
    cdef int c = 0, nnz
    if ev.routed or ev.exact_db != NULL or ev.race_tables != NULL:
        c = ev_class(ev, b)
        if c == CLASS_EXACT:
            if ev.exact(ev.exact_db, b, out):
                return
            c = CLASS_RACE
    nnz = encode_sparse(ev.encoder[c], b, idx, val)
    net_forward_sparse(ev.net[c], idx, val, nnz, buf)
    memcpy(out, buf.act[ev.net[c].n_layers], ev.K * sizeof(real_t))
    if c == CLASS_RACE and ev.race_tables != NULL:
        ev.race_refine(ev.race_tables, b.c[1], b.c[0], out)


cdef int ev_freeze(const evaluator_t* src, ev_frozen_t* f, bint keep_race=True) except -1:
    cdef int n0 = net_frozen_size(src.net[CLASS_CONTACT])
    memcpy(&f.ev, src, sizeof(evaluator_t))
    if not keep_race:
        f.ev.race_tables = NULL
        f.ev.race_refine = NULL
    f.buf = <real_t*> zeroed_or_raise(n0 + net_frozen_size(src.net[CLASS_RACE]) + 1,
                                      sizeof(real_t))
    net_freeze(src.net[CLASS_CONTACT], &f.net[CLASS_CONTACT], f.buf)
    f.ev.net[CLASS_CONTACT] = &f.net[CLASS_CONTACT]
    if src.net[CLASS_RACE] == src.net[CLASS_CONTACT]:     # one network for every class
        f.ev.net[CLASS_RACE] = &f.net[CLASS_CONTACT]
    else:
        net_freeze(src.net[CLASS_RACE], &f.net[CLASS_RACE], f.buf + n0)
        f.ev.net[CLASS_RACE] = &f.net[CLASS_RACE]
    return 0


cdef void ev_frozen_free(ev_frozen_t* f) noexcept nogil:
    free(f.buf)
    f.buf = NULL


cdef class Evaluator:
    """The networks of the position classes, and an optional exact database.

    Parameters
    ----------
    contact : Network
        Values contact positions (and every position, if ``race`` is omitted).
    race : Network, optional
        Values races; defaults to ``contact``.  Must give the same outputs.
    database : BearoffDatabase, optional
        Exact values of bear-offs (``bgengine.bearoff.default()``), in the networks'
        output form; None for none.
    race_gammons : bool, int or RaceGammonTables, optional
        Value races near their end by one-sided distributions rather than the race network
        (``bgengine.racegammon``): True for the shared tables (at most 3 checkers outside
        each home board), an int for the shared tables of that ``max_outside``; five-output
        networks only.  Saved with the file (as its ``max_outside``).
    metadata : dict, optional
        Free-form JSON-able information saved with the evaluator (training history...).
    """

    def __init__(self, Network contact not None, Network race=None, *, database=None,
                 race_gammons=None, metadata=None):
        if race is None:
            race = contact
        if race.n_outputs != contact.n_outputs:
            raise ValueError(f"the race network gives {race.n_outputs} outputs and the contact "
                             f"network {contact.n_outputs}: they must agree")
        self.contact = contact
        self.race = race
        self.ev.K = contact.n_outputs
        self.ev.net[CLASS_CONTACT] = &contact.net
        self.ev.net[CLASS_RACE] = &race.net
        self.ev.encoder[CLASS_CONTACT] = encoder_id(contact.encoder)
        self.ev.encoder[CLASS_RACE] = encoder_id(race.encoder)
        self.ev.routed = race is not contact
        self.database = None
        self.ev.exact_db = NULL
        self.ev.exact = NULL
        if database is not None:
            if not isinstance(database, BearoffDatabase):
                raise TypeError(f"database must be a BearoffDatabase, got {type(database).__name__}")
            self.database = database
            self.ev.exact_db = &(<BearoffDatabase> database).db
            self.ev.exact = (bearoff_exact1 if self.ev.K == 1 else
                             bearoff_exact4 if self.ev.K == 4 else bearoff_exact5)
        self.race_gammons = None
        self.ev.race_tables = NULL
        self.ev.race_refine = NULL
        if race_gammons is True or (isinstance(race_gammons, int)
                                    and not isinstance(race_gammons, bool)):
            from bgengine.racegammon import default as _race_tables
            race_gammons = _race_tables() if race_gammons is True else _race_tables(race_gammons)
        if race_gammons is not None and race_gammons is not False:
            if not isinstance(race_gammons, RaceGammonTables):
                raise TypeError("race_gammons must be a bool, an int (max_outside) or a "
                                f"RaceGammonTables, got {type(race_gammons).__name__}")
            if self.ev.K != 5:
                raise ValueError(f"exact race values need five-output networks, not {self.ev.K}")
            self.race_gammons = race_gammons
            self.ev.race_tables = &(<RaceGammonTables> race_gammons).s
            self.ev.race_refine = rg_refine5
        self.metadata = dict(metadata or {})

    @classmethod
    def from_network(cls, Network net not None) -> "Evaluator":
        """The evaluator of a single network: every class valued by ``net``."""
        return cls(net, metadata=dict(net.metadata))

    # ------------------------------------------------------------ shape
    @property
    def n_outputs(self) -> int:
        return self.ev.K

    @property
    def single(self) -> bool:
        """True when one network values every position (no classes, no database)."""
        return not self.ev.routed and self.database is None and self.race_gammons is None

    @property
    def networks(self) -> dict:
        """``{"contact": Network, "race": Network}`` (the same object twice for a single network)."""
        return {"contact": self.contact, "race": self.race}

    def copy(self) -> "Evaluator":
        contact = self.contact.copy()
        race = contact if self.race is self.contact else self.race.copy()
        return Evaluator(contact, race, database=self.database, race_gammons=self.race_gammons,
                         metadata=json.loads(json.dumps(self.metadata)))

    def with_race_gammons(self, race_gammons=True) -> "Evaluator":
        """The same networks (shared, not copied) with the race refinement ``race_gammons``
        (as the constructor's; False or None: off)."""
        return Evaluator(self.contact, None if self.race is self.contact else self.race,
                         database=self.database,
                         race_gammons=None if race_gammons is False else race_gammons,
                         metadata=json.loads(json.dumps(self.metadata)))

    def __reduce__(self):
        # pickling (multiprocessing, Ray): the networks and settings, rebuilt by the constructor
        return (_rebuild_evaluator, (self.contact, None if self.race is self.contact else self.race,
                                     self.database is not None, json.dumps(self.metadata),
                                     None if self.race_gammons is None
                                     else self.race_gammons.max_outside))

    def __repr__(self) -> str:
        if self.single:
            return f"Evaluator({self.contact!r})"
        parts = [f"contact={self.contact!r}", f"race={self.race!r}"]
        if self.database is not None:
            parts.append("exact bear-off database")
        if self.race_gammons is not None:
            parts.append(f"exact race values (max_outside={self.race_gammons.max_outside})")
        return f"Evaluator({', '.join(parts)})"

    # ------------------------------------------------------------ evaluation
    def classify(self, boards) -> np.ndarray:
        """Class ids (int8, see ``CLASSES``) of positions (N, 2, 25) or (2, 25)."""
        arr = np.asarray(boards)
        single = arr.ndim == 2
        cdef cnp.ndarray barr = validate_boards(arr[None] if single else arr)
        cdef Py_ssize_t n = barr.shape[0], i
        out = np.empty(n, dtype=np.int8)
        cdef cnp.int8_t[::1] ov = out
        cdef const board_t* bp = <const board_t*> cnp.PyArray_DATA(barr)
        with nogil:
            for i in range(n):
                ov[i] = ev_class(&self.ev, &bp[i])
        return out[0] if single else out

    def evaluate(self, boards) -> np.ndarray:
        """Outputs (float32, (N, K) or (K,)) of positions (N, 2, 25) or (2, 25), from the
        side on roll.  Finished games (the side on roll has no checker left) are refused."""
        arr = np.asarray(boards)
        single = arr.ndim == 2
        cdef cnp.ndarray barr = validate_boards(arr[None] if single else arr)
        if barr.shape[0] and np.any(barr.reshape(-1, 50)[:, 25:].sum(axis=1) == 0):
            raise ValueError("a finished game (the side on roll has borne off every checker) "
                             "has no evaluation")
        cdef Py_ssize_t n = barr.shape[0], i
        out = np.empty((n, self.ev.K), dtype=np.float32)
        cdef real_t[:, ::1] ov = out
        cdef const board_t* bp = <const board_t*> cnp.PyArray_DATA(barr)
        cdef ev_frozen_t frozen     # the weights stay put during the call
        cdef netbuf_t* buf = <netbuf_t*> malloc(sizeof(netbuf_t))
        if buf == NULL:
            raise MemoryError()
        frozen.buf = NULL
        try:
            ev_freeze(&self.ev, &frozen)
            with nogil:
                for i in range(n):
                    ev_static(&frozen.ev, &bp[i], buf, &ov[i, 0])
        finally:
            ev_frozen_free(&frozen)
            free(buf)
        return out[0] if single else out

    def equity(self, boards):
        """Cubeless equity (ppg) of the side on roll for each position."""
        from bgengine.network import equity_of
        return equity_of(self.evaluate(boards))

    # ------------------------------------------------------------ files
    def save(self, path) -> None:
        """Write one ``.npz`` holding every class network (atomically)."""
        from bgengine import __version__
        classes = {"contact": network_meta(self.contact)}
        arrays = {"contact_params": self.contact.params}
        if self.race is not self.contact:
            classes["race"] = network_meta(self.race)
            arrays["race_params"] = self.race.params
        meta = {**self.metadata, "format": "bgengine-evaluator", "format_version": FORMAT_VERSION,
                "bgengine_version": __version__, "classes": classes,
                "database": "bearoff" if self.database is not None else None}
        if self.race_gammons is not None:
            meta["race_gammons"] = self.race_gammons.max_outside
        text = json.dumps(meta, sort_keys=True)
        atomic_write(Path(path), lambda f: np.savez(f, metadata=np.array(text), **arrays))

    @classmethod
    def load(cls, path) -> "Evaluator":
        """Read an evaluator file, or a single-network file (see :func:`load_evaluator`)."""
        return load_evaluator(path)


def load_evaluator(path) -> Evaluator:
    """The evaluator in ``path``: a file written by :meth:`Evaluator.save`, or a
    single network's file (:meth:`Network.save`), which values every class.
    ``ValueError`` naming the file and the problem otherwise."""
    arrays, meta = read_archive(path)
    if meta.get("format") == "bgengine-network":
        if "params" not in arrays:
            raise ValueError(f"{path}: not a bgengine network file (missing 'params')")
        return Evaluator.from_network(network_from_parts(meta, arrays["params"], path))
    classes = meta.get("classes")
    if not isinstance(classes, dict) or "contact" not in classes:
        raise ValueError(f"{path}: evaluator metadata lacks its 'classes' (contact at least)")
    unknown = sorted(set(classes) - {"contact", "race"})
    if unknown:
        raise ValueError(f"{path}: unknown position classes {', '.join(unknown)}")
    nets = {}
    for name in classes:
        if f"{name}_params" not in arrays:
            raise ValueError(f"{path}: missing the {name} network's parameters")
        nets[name] = network_from_parts(classes[name], arrays[f"{name}_params"],
                                        f"{path} ({name} network)")
    database = meta.get("database")
    if database not in (None, "bearoff"):
        raise ValueError(f"{path}: unknown exact database {database!r}")
    extra = {k: v for k, v in meta.items()
             if k not in ("format", "format_version", "bgengine_version", "classes", "database",
                          "race_gammons")}
    race_gammons = meta.get("race_gammons", False)
    if race_gammons is not False and (isinstance(race_gammons, bool)
                                      or not isinstance(race_gammons, int)
                                      or not 0 <= race_gammons <= 15):
        raise ValueError(f"{path}: 'race_gammons' must be false or a number of checkers "
                         f"(0..15), got {race_gammons!r}")
    try:
        return Evaluator(nets["contact"], nets.get("race"),
                         database=_bearoff_database() if database else None,
                         race_gammons=None if race_gammons is False else race_gammons,
                         metadata=extra)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def as_evaluator(obj) -> Evaluator:
    """``obj`` if it is an :class:`Evaluator`, the evaluator of a single :class:`Network`;
    ``TypeError`` for anything else (None included)."""
    if isinstance(obj, Evaluator):
        return obj
    if isinstance(obj, Network):
        return Evaluator.from_network(obj)
    raise TypeError(f"expected a Network or an Evaluator, got {type(obj).__name__}")


def _bearoff_database():
    from bgengine.bearoff import default
    return default()


def _rebuild_evaluator(contact, race, with_database, metadata_json, race_gammons=None):
    return Evaluator(contact, race, database=_bearoff_database() if with_database else None,
                     race_gammons=race_gammons, metadata=json.loads(metadata_json))
