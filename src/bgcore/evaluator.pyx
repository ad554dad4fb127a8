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
The contact class may be split among several networks of the same shape
(*experts*) by the stage of the game (the pips of both sides together) and the
side on roll's lead in pips, at fixed cuts: more weights at one network's cost
per evaluation.
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

from bgengine.core._types cimport int32_t, real_t
from bgengine.core.board cimport board_t, board_side_empty, board_win_value, OPPONENT
from bgengine.core.memory cimport zeroed_or_raise
from bgengine.core.outputs cimport outputs_target
from bgengine.core.network cimport (Network, net_t, netbuf_t, net_forward_sparse, net_frozen_size,
                               net_freeze)
from bgengine.core.encoders cimport encode_sparse, MAX_INPUTS
from bgengine.core.bearoff cimport BearoffDatabase, bearoff_exact1, bearoff_exact4, bearoff_exact5
from bgengine.core.racegammon cimport RaceGammonTables, rg_refine5
from bgengine.core.racedist cimport RaceDistributionNetwork

from bgengine.core.board import validate_boards
from bgengine.core.encoders import encoder_id
from bgengine.core.fileio import atomic_write
from bgengine.core.network import FORMAT_VERSION, network_from_parts, network_meta, read_archive

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
        c = ev_slot(ev, c, b.c[1], b.c[0])
    nnz = encode_sparse(ev.encoder[c], b, idx, val)
    net_forward_sparse(ev.net[c], idx, val, nnz, buf)
    memcpy(out, buf.act[ev.net[c].n_layers], ev.K * sizeof(real_t))
    if c == CLASS_RACE and ev.race_tables != NULL:
        ev.race_refine(ev.race_tables, b.c[1], b.c[0], out)


cdef int ev_freeze(const evaluator_t* src, ev_frozen_t* f, bint keep_race=True) except -1:
    cdef int slot, n_slots = 2 if src.n_experts <= 1 else src.n_experts + 1
    cdef Py_ssize_t size = 1, at = 0
    memcpy(&f.ev, src, sizeof(evaluator_t))
    if not keep_race:
        f.ev.race_tables = NULL
        f.ev.race_refine = NULL
    for slot in range(n_slots):
        size += net_frozen_size(src.net[slot])
    f.buf = <real_t*> zeroed_or_raise(size, sizeof(real_t))
    for slot in range(n_slots):
        if slot == CLASS_RACE and src.net[CLASS_RACE] == src.net[CLASS_CONTACT]:
            f.ev.net[CLASS_RACE] = &f.net[CLASS_CONTACT]    # one network for every class
            continue
        net_freeze(src.net[slot], &f.net[slot], f.buf + at)
        f.ev.net[slot] = &f.net[slot]
        at += net_frozen_size(src.net[slot])
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
        Exact values of bear-offs (``bgengine.core.bearoff.default()``), in the networks'
        output form; None for none.
    race_gammons : bool, int or RaceGammonTables, optional
        Value races near their end by one-sided distributions rather than the race network
        (``bgengine.core.racegammon``): True for the shared tables (at most 3 checkers outside
        each home board), an int for the shared tables of that ``max_outside``; five-output
        networks only.  Saved with the file (as its ``max_outside``).
    metadata : dict, optional
        Free-form JSON-able information saved with the evaluator (training history...).
    experts : sequence of Network, optional
        More contact networks, of the contact network's shape and encoder: the contact
        positions are split among ``contact`` (expert 0) and these (experts 1...) by
        ``stage_cuts`` and ``lead_cuts``.
    stage_cuts, lead_cuts : sequence of int, optional
        Pip counts, increasing: a contact position's stage bin is the number of
        ``stage_cuts`` at or below the pips of both sides together, its lead bin the
        number of ``lead_cuts`` at or below the other side's pips minus the side on roll's;
        its expert is ``stage_bin * (len(lead_cuts) + 1) + lead_bin``.  There must be
        exactly one expert per pair of bins.
    """

    def __init__(self, Network contact not None, Network race=None, *, database=None,
                 race_gammons=None, metadata=None, experts=(), stage_cuts=(), lead_cuts=()):
        cdef int i
        cdef Network net
        if race is None:
            race = contact
        if race.n_outputs != contact.n_outputs:
            raise ValueError(f"the race network gives {race.n_outputs} outputs and the contact "
                             f"network {contact.n_outputs}: they must agree")
        experts = tuple(experts)
        stage_cuts = tuple(int(c) for c in stage_cuts)
        lead_cuts = tuple(int(c) for c in lead_cuts)
        for name, cuts in (("stage_cuts", stage_cuts), ("lead_cuts", lead_cuts)):
            if len(cuts) > MAX_EXPERT_CUTS or list(cuts) != sorted(set(cuts)):
                raise ValueError(f"{name} must be at most {MAX_EXPERT_CUTS} increasing pip "
                                 f"counts, got {list(cuts)}")
        n_experts = (len(stage_cuts) + 1) * (len(lead_cuts) + 1)
        if len(experts) + 1 != n_experts:
            raise ValueError(f"{len(stage_cuts)} stage cuts and {len(lead_cuts)} lead cuts make "
                             f"{n_experts} contact experts: the contact network and "
                             f"{n_experts - 1} more, not {len(experts)}")
        if n_experts > MAX_CONTACT_EXPERTS:
            raise ValueError(f"at most {MAX_CONTACT_EXPERTS} contact experts, not {n_experts}")
        for obj in experts:
            if not isinstance(obj, Network):
                raise TypeError(f"experts must be Networks, got {type(obj).__name__}")
            net = obj
            if net.sizes != contact.sizes or net.encoder != contact.encoder:
                raise ValueError(f"a contact expert must have the contact network's sizes and "
                                 f"encoder ({contact.sizes}, {contact.encoder}), not "
                                 f"{net.sizes}, {net.encoder}")
        self.contact = contact
        self.race = race
        self.experts = experts
        self.stage_cuts = stage_cuts
        self.lead_cuts = lead_cuts
        self.ev.K = contact.n_outputs
        self.ev.net[CLASS_CONTACT] = &contact.net
        self.ev.net[CLASS_RACE] = &race.net
        self.ev.encoder[CLASS_CONTACT] = encoder_id(contact.encoder)
        self.ev.encoder[CLASS_RACE] = encoder_id(race.encoder)
        self.ev.n_experts = n_experts
        self.ev.n_stage_cuts = len(stage_cuts)
        self.ev.n_lead_cuts = len(lead_cuts)
        for i in range(len(stage_cuts)):
            self.ev.stage_cuts[i] = stage_cuts[i]
        for i in range(len(lead_cuts)):
            self.ev.lead_cuts[i] = lead_cuts[i]
        for i in range(len(experts)):
            net = experts[i]
            self.ev.net[i + 2] = &net.net
            self.ev.encoder[i + 2] = self.ev.encoder[CLASS_CONTACT]
        self.ev.routed = race is not contact or n_experts > 1
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
            from bgengine.core.racegammon import default as _race_tables
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
        """``{"contact": Network, "race": Network}`` (the same object twice for a single
        network), with ``"contact1"``... for the contact experts."""
        nets = {"contact": self.contact, "race": self.race}
        nets.update({f"contact{i}": net for i, net in enumerate(self.experts, 1)})
        return nets

    def copy(self) -> "Evaluator":
        contact = self.contact.copy()
        race = contact if self.race is self.contact else self.race.copy()
        return Evaluator(contact, race, database=self.database, race_gammons=self.race_gammons,
                         metadata=json.loads(json.dumps(self.metadata)),
                         experts=[e.copy() for e in self.experts], stage_cuts=self.stage_cuts,
                         lead_cuts=self.lead_cuts)

    def with_race_gammons(self, race_gammons=True) -> "Evaluator":
        """The same networks (shared, not copied) with the race refinement ``race_gammons``
        (as the constructor's; False or None: off)."""
        return Evaluator(self.contact, None if self.race is self.contact else self.race,
                         database=self.database,
                         race_gammons=None if race_gammons is False else race_gammons,
                         metadata=json.loads(json.dumps(self.metadata)), experts=self.experts,
                         stage_cuts=self.stage_cuts, lead_cuts=self.lead_cuts)

    def __reduce__(self):
        # pickling (multiprocessing, Ray): the networks and settings, rebuilt by the constructor
        return (_rebuild_evaluator, (self.contact, None if self.race is self.contact else self.race,
                                     self.database is not None, json.dumps(self.metadata),
                                     None if self.race_gammons is None
                                     else self.race_gammons.max_outside
                                     if self.race_gammons.network is None
                                     else self.race_gammons,
                                     self.experts, self.stage_cuts, self.lead_cuts))

    def __repr__(self) -> str:
        if self.single:
            return f"Evaluator({self.contact!r})"
        parts = [f"contact={self.contact!r}", f"race={self.race!r}"]
        if self.database is not None:
            parts.append("exact bear-off database")
        if self.race_gammons is not None:
            parts.append(f"exact race values (max_outside={self.race_gammons.max_outside})")
            if self.race_gammons.network is not None:
                parts.append(f"race distributions ({self.race_gammons.network!r})")
        if self.experts:
            parts.append(f"{len(self.experts) + 1} contact experts (stage cuts "
                         f"{list(self.stage_cuts)}, lead cuts {list(self.lead_cuts)})")
        return f"Evaluator({', '.join(parts)})"

    # ------------------------------------------------------------ evaluation
    def classify(self, boards) -> np.ndarray:
        """Class ids (int8, see ``CLASSES``) of positions (N, 2, 25) or (2, 25)."""
        return self._per_board(boards, False)

    def expert_of(self, boards) -> np.ndarray:
        """The contact expert (int8, 0 for the contact network, see the class docstring) of
        positions (N, 2, 25) or (2, 25), side on roll in row 1; -1 for other classes."""
        return self._per_board(boards, True)

    def _per_board(self, boards, bint experts):
        arr = np.asarray(boards)
        single = arr.ndim == 2
        cdef cnp.ndarray barr = validate_boards(arr[None] if single else arr)
        cdef Py_ssize_t n = barr.shape[0], i
        out = np.empty(n, dtype=np.int8)
        cdef cnp.int8_t[::1] ov = out
        cdef const board_t* bp = <const board_t*> cnp.PyArray_DATA(barr)
        cdef int c
        with nogil:
            for i in range(n):
                c = ev_class(&self.ev, &bp[i])
                if not experts:
                    ov[i] = c
                elif c != CLASS_CONTACT:
                    ov[i] = -1
                else:
                    ov[i] = (ev_expert(&self.ev, bp[i].c[1], bp[i].c[0])
                             if self.ev.n_experts > 1 else 0)
        return out[0] if single else out

    def evaluate(self, boards) -> np.ndarray:
        """Outputs (float32, (N, K) or (K,)) of positions (N, 2, 25) or (2, 25), from the
        side on roll.  A game the opponent has won (its checkers all borne off) has its
        exact outputs (a loss of 1, 2 or 3 points); a position where the side on roll has
        no checker left cannot arise and is refused."""
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
                    if board_side_empty(&bp[i], OPPONENT):
                        outputs_target(self.ev.K, -board_win_value(&bp[i], OPPONENT), &ov[i, 0])
                    else:
                        ev_static(&frozen.ev, &bp[i], buf, &ov[i, 0])
        finally:
            ev_frozen_free(&frozen)
            free(buf)
        return out[0] if single else out

    def equity(self, boards):
        """Cubeless equity (ppg) of the side on roll for each position."""
        from bgengine.core.network import equity_of
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
        for i, net in enumerate(self.experts, 1):
            classes[f"contact{i}"] = network_meta(net)
            arrays[f"contact{i}_params"] = net.params
        meta = {**self.metadata, "format": "bgengine-evaluator", "format_version": FORMAT_VERSION,
                "bgengine_version": __version__, "classes": classes,
                "database": "bearoff" if self.database is not None else None}
        if self.experts:
            meta["contact_experts"] = {"stage_cuts": list(self.stage_cuts),
                                       "lead_cuts": list(self.lead_cuts)}
        if self.race_gammons is not None:
            meta["race_gammons"] = self.race_gammons.max_outside
            network = self.race_gammons.network
            if network is not None:
                meta["race_distributions"] = {"hidden": network.hidden,
                                              "max_outside": network.max_outside}
                for name, a in network.arrays().items():
                    arrays[f"race_distributions_{name}"] = a
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
    routing = meta.get("contact_experts", {"stage_cuts": [], "lead_cuts": []})
    if (not isinstance(routing, dict) or set(routing) != {"stage_cuts", "lead_cuts"}
            or not all(isinstance(v, list) and all(isinstance(c, int) for c in v)
                       for v in routing.values())):
        raise ValueError(f"{path}: 'contact_experts' must hold the lists 'stage_cuts' and "
                         f"'lead_cuts' of pip counts, got {routing!r}")
    n_experts = (len(routing["stage_cuts"]) + 1) * (len(routing["lead_cuts"]) + 1)
    expert_names = [f"contact{i}" for i in range(1, n_experts)]
    unknown = sorted(set(classes) - {"contact", "race", *expert_names})
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
                          "race_gammons", "contact_experts", "race_distributions")}
    race_gammons = meta.get("race_gammons", False)
    if race_gammons is not False and (isinstance(race_gammons, bool)
                                      or not isinstance(race_gammons, int)
                                      or not 0 <= race_gammons <= 15):
        raise ValueError(f"{path}: 'race_gammons' must be false or a number of checkers "
                         f"(0..15), got {race_gammons!r}")
    distributions = meta.get("race_distributions")
    if distributions is not None:
        if race_gammons is False:
            raise ValueError(f"{path}: 'race_distributions' need 'race_gammons'")
        names = ("w1", "b1", "w2", "b2")
        if not isinstance(distributions, dict) or not all(
                f"race_distributions_{n}" in arrays for n in names):
            raise ValueError(f"{path}: the race distribution network's weights are missing")
        try:
            network = RaceDistributionNetwork(
                *(arrays[f"race_distributions_{n}"] for n in names),
                max_outside=distributions.get("max_outside"))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path}: race distribution network: {exc}") from None
        race_gammons = RaceGammonTables(max_outside=race_gammons, network=network)
    try:
        return Evaluator(nets["contact"], nets.get("race"),
                         database=_bearoff_database() if database else None,
                         race_gammons=None if race_gammons is False else race_gammons,
                         metadata=extra, experts=[nets[n] for n in expert_names if n in nets],
                         stage_cuts=routing["stage_cuts"], lead_cuts=routing["lead_cuts"])
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
    from bgengine.core.bearoff import default
    return default()


def _rebuild_evaluator(contact, race, with_database, metadata_json, race_gammons=None,
                       experts=(), stage_cuts=(), lead_cuts=()):
    return Evaluator(contact, race, database=_bearoff_database() if with_database else None,
                     race_gammons=race_gammons, metadata=json.loads(metadata_json),
                     experts=experts, stage_cuts=stage_cuts, lead_cuts=lead_cuts)
