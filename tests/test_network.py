"""Network: forward/backward against float64 numpy references, equity forms,
save/load round trips and every way a network file can be bad."""

from __future__ import annotations

import json
import pickle
import zipfile

import numpy as np
import pytest

from bgengine.core.encoders import encode, input_order, n_inputs
from bgengine.core.movegen import legal_afterstates
from bgengine.core.network import (KERNELS, OUTPUT_FORMS, Network, available_kernels, kernel,
                              sigmoid_table, use_kernel)


def start_board() -> np.ndarray:
    b = np.zeros((2, 25), np.uint8)
    for s in range(2):
        b[s, 23], b[s, 12], b[s, 7], b[s, 5] = 2, 5, 3, 5
    return b


def random_positions(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = []
    b = start_board()
    while len(out) < n:
        out.append(b.copy())
        after, _ = legal_afterstates(b, *(int(x) for x in rng.integers(1, 7, 2)))
        a = after[rng.integers(len(after))]
        b = start_board() if a[1].sum() == 0 else a[::-1].copy()
    return np.array(out)


# ---------------------------------------------------------------- reference

def unpack(sizes, params):
    params = np.asarray(params, np.float64)
    layers, off = [], 0
    for l in range(len(sizes) - 1):
        n_in, n_out = sizes[l], sizes[l + 1]
        W = params[off:off + n_in * n_out].reshape(n_in, n_out)
        off += n_in * n_out
        b = params[off:off + n_out]
        off += n_out
        layers.append((W, b))
    assert off == params.size
    return layers


def ref_forward(sizes, params, x):
    a = np.asarray(x, np.float64)
    for W, b in unpack(sizes, params):
        a = 1.0 / (1.0 + np.exp(-(a @ W + b)))
    return a


def ref_equity(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, np.float64)
    K = v.shape[-1]
    if K == 1:
        return 2 * v[..., 0] - 1
    if K == 4:   # win, lose, win gammon, lose gammon
        return v[..., 0] - v[..., 1] + v[..., 2] - v[..., 3]
    w, wg, wbg, lg, lbg = (v[..., k] for k in range(5))
    return 2 * w - 1 + wg - lg + wbg - lbg


NETS = [((1,), 1), ((7,), 1), ((6,), 4), ((5,), 5), ((6, 4), 1), ((5, 3), 5), ((4, 3, 3), 4)]


# ---------------------------------------------------------------- sigmoid

def test_sigmoid_table_accuracy():
    x = np.linspace(-20, 20, 400_001)
    exact = 1 / (1 + np.exp(-x))
    got = sigmoid_table(x.astype(np.float32)).astype(np.float64)
    # compare against the exact sigmoid of the float32 argument
    exact32 = 1 / (1 + np.exp(-x.astype(np.float32).astype(np.float64)))
    assert np.abs(got - exact32).max() < 2e-6
    assert np.abs(got - exact).max() < 2e-6
    assert np.all(np.diff(got) >= 0)                 # monotone
    assert got.dtype == np.float64 and sigmoid_table(x).dtype == np.float32
    extremes = sigmoid_table(np.array([-1e30, -100, 0, 100, 1e30, np.inf, -np.inf]))
    np.testing.assert_allclose(extremes, [0, 0, 0.5, 1, 1, 1, 0], atol=2e-6)
    assert sigmoid_table(np.float32(0.0)) == pytest.approx(0.5, abs=1e-7)


# ---------------------------------------------------------------- forward

@pytest.mark.parametrize("hidden,K", NETS)
@pytest.mark.parametrize("encoder", ["tesauro198", "expert"])
def test_forward_matches_reference(hidden, K, encoder):
    net = Network(hidden, K, encoder, seed=3, init_range=0.5)
    assert net.sizes == (n_inputs(encoder),) + hidden + (K,)
    assert net.params.dtype == np.float32 and net.params.ndim == 1
    assert net.n_inputs == n_inputs(encoder) and net.n_outputs == K and net.hidden == hidden
    assert net.output_names == OUTPUT_FORMS[K]
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 2, (9, net.n_inputs)).astype(np.float32)
    x[x < 0.3] = 0                                       # sparse-ish, with zeros
    y = net.forward(x)
    assert y.shape == (9, K) and y.dtype == np.float32
    np.testing.assert_allclose(y, ref_forward(net.sizes, net.params, x), atol=1e-5, rtol=0)
    # one row at a time gives the same
    np.testing.assert_array_equal(np.vstack([net.forward(x[i:i + 1]) for i in range(9)]), y)
    # float64 and list inputs are converted
    np.testing.assert_array_equal(net.forward(x.astype(np.float64).tolist()), y)
    assert net.forward(np.zeros((0, net.n_inputs))).shape == (0, K)


def fma32(a, b, c) -> np.ndarray:
    """float32 a * b + c rounded once (C's fmaf), elementwise.  In float64 the product is
    exact (24 + 24 bits) and TwoSum gives the sum's exact error e; rounding the float64 sum
    s to float32 is then right unless s lies exactly halfway between two float32s, where
    e decides the side."""
    p = np.float64(a) * np.asarray(b, np.float64)
    c64 = np.asarray(c, np.float64)
    s = p + c64
    bb = s - p
    e = (p - (s - bb)) + (c64 - bb)              # s + e == p + c exactly
    r = s.astype(np.float32)
    d = s - r.astype(np.float64)                 # exact: r is s's float32 neighbour
    other = np.nextafter(r, np.where(d > 0, np.float32(np.inf), np.float32(-np.inf)))
    halfway = (d != 0) & (s == (r.astype(np.float64) + other.astype(np.float64)) / 2)
    return np.where(halfway & (np.sign(e) == np.sign(d)), other, r)


def test_fma32_rounds_once():
    """fma32 against exact rational arithmetic: random triples, and triples built so that
    a * b + c lies just off a halfway point between float32s, where rounding to float64
    first lands on the halfway point and ties the wrong way."""
    from fractions import Fraction

    def round32(x: Fraction) -> np.float32:
        r = np.float32(float(x))                 # within one float32 step of the answer
        near = (np.nextafter(r, np.float32(-np.inf)), r, np.nextafter(r, np.float32(np.inf)))
        return min(near, key=lambda t: (abs(Fraction(float(t)) - x), int(np.float32(t).view(np.int32)) & 1))

    rng = np.random.default_rng(5)
    n = 3000
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = rng.standard_normal(n).astype(np.float32)
    # (1 + 2^-20) * 2^-24 (1 - 2^-20) + (1 + 2^-23) = 1 + 2^-23 + 2^-24 - 2^-64, scaled
    k = 500
    scale = np.ldexp(np.float32(1), rng.integers(-20, 20, k)) * rng.choice([-1, 1], k)
    a[:k] = np.float32(1 + 2.0**-20)
    b[:k] = (np.float32(2.0**-24 * (1 - 2.0**-20)) * scale).astype(np.float32)
    c[:k] = (np.float32(1 + 2.0**-23) * scale).astype(np.float32)
    got = fma32(a, b, c)
    twice = (a.astype(np.float64) * b + c).astype(np.float32)
    for ai, bi, ci, g in zip(a, b, c, got):
        want = round32(Fraction(float(ai)) * Fraction(float(bi)) + Fraction(float(ci)))
        assert g == want, (ai, bi, ci, g, want)
    assert (twice[:k] != got[:k]).all()          # the built cases do need the care


def exact_first_layer(W, b, x, order=None) -> np.ndarray:
    """The first layer's pre-activations of one input vector ``x`` in float32: the bias, then
    the rows of the nonzero inputs added one by one as fused multiply-adds, in the encoder's
    ``order`` (default ascending)."""
    h = b.copy()
    for i in (range(len(x)) if order is None else order):
        if x[i] != 0:
            h = fma32(x[i], W[i], h)
    return h


def exact_forward(sizes, params, x, order=None) -> np.ndarray:
    """The forward pass in float32, in the fixed order nnkernels.h defines: first-layer
    rows of the nonzero inputs added one by one as fused multiply-adds (in the encoder's
    ``order``, default ascending), then for every
    later layer eight partial sums over i mod 8, each by fused multiply-adds, combined as
    b + (((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7))).  The sigmoid is the core's
    table (tested on its own above)."""
    p = np.asarray(params, np.float32)
    out = []
    for xi in np.asarray(x, np.float32):
        off, a = 0, xi
        for l in range(len(sizes) - 1):
            n_in, n_out = sizes[l], sizes[l + 1]
            W = p[off:off + n_in * n_out].reshape(n_in, n_out)
            b = p[off + n_in * n_out:off + n_in * n_out + n_out]
            off += n_in * n_out + n_out
            if l == 0:
                h = exact_first_layer(W, b, a, order)
            else:
                s = [np.zeros(n_out, np.float32) for _ in range(8)]
                for i in range(n_in):
                    s[i % 8] = fma32(a[i], W[i], s[i % 8])
                h = b + (((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7])))
            a = sigmoid_table(h)
        out.append(a)
    return np.array(out)


KERNEL_NETS = [((80,), 5), ((1,), 1), ((7,), 4), ((8,), 5), ((16,), 1), ((17,), 5), ((100,), 4),
               ((130,), 5), ((200,), 5), ((40, 9), 5), ((12, 9, 3), 1),
               # widths a multiple of 8 (the output layer 8 rows at a time, or, in evaluate,
               # from its transposed copy), in one column block or several of equal width
               # (104: 56 + 48; 128: 64 + 64)
               ((64,), 5), ((96,), 4), ((104,), 1), ((128,), 5), ((128,), 4), ((256,), 5),
               # later hidden layers (the dense kernel): 64 outputs a block, the last one
               # narrower or with a partial vector
               ((128, 128), 5), ((32, 20), 4), ((24, 72, 9), 5), ((16, 136), 1),
               ((40, 24, 17), 4), ((33, 13), 5)]


@pytest.mark.parametrize("hidden,K", KERNEL_NETS)
def test_forward_exact_order_every_kernel(hidden, K):
    """Every SIMD kernel this CPU runs gives the exact float32 result of the fixed
    summation order, bit for bit: the kernel changes speed, never results."""
    net = Network(hidden, K, "expert", seed=11, init_range=0.7)
    boards = random_positions(60, seed=2)
    x = encode(boards, "expert")
    x[::7, 5] = 0.37                                 # some values that are not 0 or 1
    want = exact_forward(net.sizes, net.params, x, input_order("expert"))
    assert "c" in available_kernels() and kernel() == available_kernels()[0]
    previous = kernel()
    try:
        for name in available_kernels():
            use_kernel(name)
            assert kernel() == name
            np.testing.assert_array_equal(net.forward(x), want, err_msg=name)
            np.testing.assert_array_equal(net.evaluate(boards), exact_forward(
                net.sizes, net.params, encode(boards, "expert"), input_order("expert")),
                err_msg=name)
    finally:
        use_kernel(previous)


@pytest.mark.parametrize("hidden,K", KERNEL_NETS)
def test_forward_keeping_the_first_layer_sums_every_kernel(hidden, K):
    """The pass that also leaves the first layer's pre-activations (bias + rows, written
    over the partial sum it started from, as a chain of sibling plays does) gives the same
    outputs bit for bit, and those sums are the fixed order's, on every kernel."""
    from bgengine.core.network import _forward_keeping_sums
    net = Network(hidden, K, "expert", seed=12, init_range=0.7)
    x = encode(random_positions(40, seed=3), "expert")
    x[::5, 9] = 0.61
    order = input_order("expert")
    p = np.asarray(net.params, np.float32)
    n_in, H = net.sizes[0], net.sizes[1]
    W, b = p[:n_in * H].reshape(n_in, H), p[n_in * H:n_in * H + H]
    want_sums = [exact_first_layer(W, b, xi, order) for xi in x]
    want = exact_forward(net.sizes, net.params, x, order)
    previous = kernel()
    try:
        for name in available_kernels():
            use_kernel(name)
            out, sums = _forward_keeping_sums(net, x)
            np.testing.assert_array_equal(out, want, err_msg=name)
            np.testing.assert_array_equal(sums, np.array(want_sums), err_msg=name)
    finally:
        use_kernel(previous)


def test_use_kernel_errors():
    with pytest.raises(ValueError, match="unknown kernel"):
        use_kernel("sse9")
    missing = [k for k in KERNELS if k not in available_kernels()]
    for name in missing:
        with pytest.raises(ValueError, match="does not run on this CPU"):
            use_kernel(name)
    before = kernel()
    assert use_kernel(None) == before and kernel() == available_kernels()[0]


def test_init_range_and_seed():
    a = Network((10,), 5, "tesauro198", seed=1, init_range=0.1)
    b = Network((10,), 5, "tesauro198", seed=1, init_range=0.1)
    c = Network((10,), 5, "tesauro198", seed=2, init_range=0.1)
    np.testing.assert_array_equal(a.params, b.params)
    assert not np.array_equal(a.params, c.params)
    assert np.abs(a.params).max() <= 0.1 and np.abs(a.params).max() > 0.09
    assert a.params.size == 198 * 10 + 10 + 10 * 5 + 5


def test_weights_views_and_copy():
    net = Network((6, 4), 5, "tesauro198", seed=2)
    layers = unpack(net.sizes, net.params)
    for l in range(3):
        W, b = net.weights(l)
        assert W.shape == (net.sizes[l], net.sizes[l + 1]) and b.shape == (net.sizes[l + 1],)
        np.testing.assert_array_equal(W, layers[l][0])
        np.testing.assert_array_equal(b, layers[l][1])
    with pytest.raises(IndexError):
        net.weights(3)
    with pytest.raises(IndexError):
        net.weights(-1)
    x = np.random.default_rng(0).uniform(0, 1, (2, 198)).astype(np.float32)
    before = net.forward(x)
    cp = net.copy()
    W, b = net.weights(2)
    b += 1.0                                            # views write through
    assert not np.array_equal(net.forward(x), before)
    np.testing.assert_array_equal(cp.forward(x), before)    # the copy is independent
    assert cp.sizes == net.sizes and cp.encoder == net.encoder
    net.params[:] = cp.params                            # in-place assignment is seen by C
    np.testing.assert_array_equal(net.forward(x), before)


# ---------------------------------------------------------------- backward

@pytest.mark.parametrize("hidden,K", [((4,), 1), ((3,), 4), ((3,), 5), ((3, 2), 1), ((2, 3), 5)])
def test_backward_matches_finite_differences(hidden, K):
    net = Network(hidden, K, "tesauro198", seed=5, init_range=0.7)
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1.5, (3, 198))
    x[x < 0.9] = 0
    x = x.astype(np.float32)
    dout = rng.normal(size=(3, K)).astype(np.float32)
    g = net.backward(x, dout)
    assert g.shape == net.params.shape and g.dtype == np.float32
    p0 = net.params.astype(np.float64)
    xd, dd = x.astype(np.float64), dout.astype(np.float64)

    def f(p):
        return float((ref_forward(net.sizes, p, xd) * dd).sum())

    eps = 1e-6
    fd = np.zeros_like(p0)
    # every parameter whose gradient can be nonzero: W0 rows of nonzero inputs and all the rest
    W0_end = 198 * hidden[0]
    active = [i for i in range(p0.size)
              if i >= W0_end or x[:, i // hidden[0]].any()]
    for i in active:
        p = p0.copy()
        p[i] += eps
        hi = f(p)
        p[i] -= 2 * eps
        fd[i] = (hi - f(p)) / (2 * eps)
    assert len(active) > 50
    np.testing.assert_allclose(g.astype(np.float64), fd, atol=2e-5, rtol=1e-3)
    assert np.all(g[:W0_end].reshape(198, hidden[0])[~x.any(axis=0)] == 0)
    # linear in dout, additive over the batch
    np.testing.assert_allclose(net.backward(x, 2 * dout), 2 * g, rtol=1e-5, atol=1e-7)
    parts = sum(net.backward(x[i:i + 1], dout[i:i + 1]) for i in range(3))
    np.testing.assert_allclose(parts, g, rtol=1e-5, atol=1e-7)


def test_backward_bad_shapes():
    net = Network((3,), 5, "tesauro198")
    x = np.zeros((2, 198), np.float32)
    with pytest.raises(ValueError, match="dout"):
        net.backward(x, np.zeros((2, 4)))
    with pytest.raises(ValueError, match="dout"):
        net.backward(x, np.zeros((3, 5)))
    with pytest.raises(ValueError, match="inputs"):
        net.backward(np.zeros((2, 197)), np.zeros((2, 5)))
    with pytest.raises(ValueError, match="inputs"):
        net.forward(np.zeros(198))
    with pytest.raises(ValueError, match="inputs"):
        net.forward(np.zeros((1, 222)))


# ---------------------------------------------------------------- positions

@pytest.mark.parametrize("encoder", ["tesauro198", "tesauro198+extra", "expert"])
@pytest.mark.parametrize("K", [1, 4, 5])
def test_evaluate_is_forward_of_encode(encoder, K):
    boards = random_positions(60, seed=K)
    net = Network((8, 3) if K == 4 else (8,), K, encoder, seed=1, init_range=0.3)
    v = net.evaluate(boards)
    assert v.shape == (60, K) and v.dtype == np.float32
    np.testing.assert_allclose(v, net.forward(encode(boards, encoder)), atol=1e-6, rtol=0)
    np.testing.assert_array_equal(net.evaluate(boards[7]), v[7])
    e = net.equity(boards)
    assert e.shape == (60,)
    np.testing.assert_allclose(e, ref_equity(v), atol=1e-6)
    assert float(net.equity(boards[7])) == pytest.approx(e[7], abs=1e-12)
    with pytest.raises(ValueError):
        net.evaluate(np.zeros((2, 24)))
    bad = boards[:2].astype(np.int64)
    bad[1, 1, 3] += 15
    with pytest.raises(ValueError, match=r"boards\[1\]"):
        net.evaluate(bad)


def test_equity_forms_by_hand():
    """Set the output biases so each output is a known probability."""
    probs = {1: [0.7], 4: [0.6, 0.4, 0.2, 0.1], 5: [0.6, 0.2, 0.05, 0.1, 0.02]}
    want = {1: 2 * 0.7 - 1, 4: 0.6 - 0.4 + 0.2 - 0.1, 5: 2 * 0.6 - 1 + 0.2 - 0.1 + 0.05 - 0.02}
    for K, p in probs.items():
        net = Network((2,), K, "tesauro198", seed=0)
        W, b = net.weights(1)
        W[:] = 0
        b[:] = np.log(np.array(p) / (1 - np.array(p)))
        v = net.evaluate(start_board())
        np.testing.assert_allclose(v, p, atol=2e-6)
        assert float(net.equity(start_board())) == pytest.approx(want[K], abs=1e-5)


# ---------------------------------------------------------------- files

def test_save_load_round_trip(tmp_path):
    meta = {"training": {"games": 123, "config": {"alpha": 0.1, "hidden": [6, 4]}},
            "note": "héllo", "list": [1, 2.5, None, True]}
    net = Network((6, 4), 5, "tesauro198+extra", seed=9, metadata=meta)
    path = tmp_path / "n.npz"
    net.save(path)
    assert [p.name for p in tmp_path.iterdir()] == ["n.npz"]       # no temp files left
    back = Network.load(path)
    assert back.sizes == net.sizes and back.encoder == net.encoder
    assert back.params.dtype == np.float32
    np.testing.assert_array_equal(back.params, net.params)
    for k, v in meta.items():
        assert back.metadata[k] == v
    assert "saved_by" in back.metadata
    boards = random_positions(10, seed=0)
    np.testing.assert_array_equal(back.evaluate(boards), net.evaluate(boards))
    # the file is a plain npz with JSON metadata: no pickle needed
    with np.load(path, allow_pickle=False) as z:
        m = json.loads(str(z["metadata"]))
        assert m["format"] == "bgengine-network" and m["sizes"] == [212, 6, 4, 5]
        assert m["encoder"] == "tesauro198+extra" and m["n_outputs"] == 5
    # save again over the same path, and with a str path
    back.save(str(path))
    np.testing.assert_array_equal(Network.load(str(path)).params, net.params)


def _write_npz(path, **arrays):
    np.savez(path, **arrays)
    return path


def _meta(**kw):
    m = {"format": "bgengine-network", "format_version": 1, "encoder": "tesauro198",
         "sizes": [198, 3, 1]}
    m.update(kw)
    return np.array(json.dumps(m))


def _bad_files(tmp_path):
    good = Network((3,), 1, "tesauro198", seed=0)
    ok = tmp_path / "ok.npz"
    good.save(ok)
    raw = ok.read_bytes()
    files = {}
    p = tmp_path / "random.npz"
    p.write_bytes(np.random.default_rng(0).bytes(3000))
    files["random bytes"] = p
    p = tmp_path / "empty.npz"
    p.write_bytes(b"")
    files["empty"] = p
    p = tmp_path / "trunc.npz"
    p.write_bytes(raw[: len(raw) // 2])
    files["truncated"] = p
    p = tmp_path / "flip.npz"
    data = bytearray(raw)
    for i in range(60, len(data) - 200, 37):
        data[i] ^= 0xFF
    p.write_bytes(bytes(data))
    files["bit flips"] = p
    p = tmp_path / "text.npz"
    p.write_text("hello, I am not a network\n")
    files["text"] = p
    p = tmp_path / "array.npy"
    np.save(p, good.params)
    files["npy not npz"] = p
    p = tmp_path / "pickle.npz"
    p.write_bytes(pickle.dumps({"params": good.params}))
    files["pickle"] = p
    files["object params"] = _write_npz(tmp_path / "obj.npz",
                                        params=np.array([good.params], dtype=object),
                                        metadata=_meta())
    files["no metadata"] = _write_npz(tmp_path / "nometa.npz", params=good.params)
    files["no params"] = _write_npz(tmp_path / "noparams.npz", metadata=_meta())
    files["bad json"] = _write_npz(tmp_path / "badjson.npz", params=good.params,
                                   metadata=np.array("{not json"))
    files["wrong format"] = _write_npz(tmp_path / "fmt.npz", params=good.params,
                                       metadata=_meta(format="something-else"))
    files["newer version"] = _write_npz(tmp_path / "ver.npz", params=good.params,
                                        metadata=_meta(format_version=99))
    files["unknown encoder"] = _write_npz(tmp_path / "enc.npz", params=good.params,
                                          metadata=_meta(encoder="gnubg250"))
    files["inputs disagree"] = _write_npz(tmp_path / "inp.npz", params=good.params,
                                          metadata=_meta(encoder="expert"))
    files["wrong length"] = _write_npz(tmp_path / "len.npz", params=good.params[:-1],
                                       metadata=_meta())
    files["wrong sizes"] = _write_npz(tmp_path / "sizes.npz", params=good.params,
                                      metadata=_meta(sizes=[198, 4, 1]))
    files["2-d params"] = _write_npz(tmp_path / "twod.npz", params=good.params.reshape(1, -1),
                                     metadata=_meta())
    files["float64 params"] = _write_npz(tmp_path / "f64.npz",
                                         params=good.params.astype(np.float64), metadata=_meta())
    nan = good.params.copy()
    nan[5] = np.nan
    files["NaN"] = _write_npz(tmp_path / "nan.npz", params=nan, metadata=_meta())
    inf = good.params.copy()
    inf[-1] = np.inf
    files["inf"] = _write_npz(tmp_path / "inf.npz", params=inf, metadata=_meta())
    files["no sizes"] = _write_npz(tmp_path / "nosizes.npz", params=good.params,
                                   metadata=np.array(json.dumps({"format": "bgengine-network",
                                                                 "encoder": "tesauro198"})))
    files["short sizes"] = _write_npz(tmp_path / "short.npz", params=good.params,
                                      metadata=_meta(sizes=[198, 1]))
    files["bad outputs"] = _write_npz(tmp_path / "outs.npz",
                                      params=np.zeros(198 * 3 + 3 + 3 * 2 + 2, np.float32),
                                      metadata=_meta(sizes=[198, 3, 2]))
    files["non-int size"] = _write_npz(tmp_path / "nonint.npz", params=good.params,
                                       metadata=_meta(sizes=[198, "three", 1]))
    files["directory"] = tmp_path
    with zipfile.ZipFile(tmp_path / "zip.npz", "w") as z:
        z.writestr("readme.txt", "a zip, not an npz")
    files["plain zip"] = tmp_path / "zip.npz"
    return files


def test_bad_files_give_value_error_with_path(tmp_path):
    for what, path in _bad_files(tmp_path).items():
        with pytest.raises(ValueError) as info:
            Network.load(path)
        assert str(path) in str(info.value), (what, str(info.value))


def test_newer_version_message(tmp_path):
    files = _bad_files(tmp_path)
    with pytest.raises(ValueError, match="newer"):
        Network.load(files["newer version"])
    with pytest.raises(ValueError, match="unknown encoder"):
        Network.load(files["unknown encoder"])
    with pytest.raises(ValueError, match="NaN"):
        Network.load(files["NaN"])


def test_missing_file(tmp_path):
    with pytest.raises(ValueError, match="missing.npz: no such network file"):
        Network.load(tmp_path / "missing.npz")


@pytest.mark.parametrize("meta", ["[1, 2]", '"a string"', "3"])
def test_metadata_not_an_object(tmp_path, meta):
    """Metadata that is valid JSON but not an object is a bad file too."""
    good = Network((3,), 1, "tesauro198", seed=0)
    path = _write_npz(tmp_path / "m.npz", params=good.params, metadata=np.array(meta))
    with pytest.raises(ValueError, match="m.npz"):
        Network.load(path)


def test_format_version_not_a_number(tmp_path):
    good = Network((3,), 1, "tesauro198", seed=0)
    path = _write_npz(tmp_path / "v.npz", params=good.params, metadata=_meta(format_version="1"))
    with pytest.raises(ValueError, match="v.npz"):
        Network.load(path)


def test_metadata_cannot_shadow_file_fields(tmp_path):
    """User metadata named like a file field must not corrupt the saved file."""
    net = Network((3,), 1, "tesauro198", seed=0, metadata={"encoder": "expert", "n_outputs": 5})
    net.save(tmp_path / "s.npz")
    back = Network.load(tmp_path / "s.npz")
    assert back.encoder == "tesauro198" and back.n_outputs == 1


def test_save_failure_leaves_nothing(tmp_path):
    net = Network((3,), 1, "tesauro198", seed=0, metadata={"x": object()})
    with pytest.raises(TypeError):
        net.save(tmp_path / "x.npz")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(OSError):
        Network((3,), 1).save(tmp_path / "no" / "such" / "dir.npz")


def test_constructor_validation():
    bad = [
        dict(hidden=()), dict(hidden=(0,)), dict(hidden=(-3,)), dict(hidden=(2000,)),
        dict(hidden=(4, 4, 4, 4)), dict(n_outputs=2), dict(n_outputs=0), dict(n_outputs=3),
        dict(encoder="nope"), dict(params=np.zeros(10)),
        dict(hidden=(2,), n_outputs=1, params=np.full(198 * 2 + 2 + 2 + 1, np.nan)),
        dict(hidden=(2,), n_outputs=1, params=np.full(198 * 2 + 2 + 2 + 1, np.inf)),
    ]
    for kw in bad:
        with pytest.raises(ValueError):
            Network(**kw)
    # the biggest legal shapes work
    assert Network((4, 4, 4), 1).sizes == (198, 4, 4, 4, 1)
    n = Network((2,), 1, params=np.arange(198 * 2 + 5, dtype=np.float64))
    assert n.params.dtype == np.float32 and n.params[3] == 3
    src = np.zeros(198 * 2 + 5, np.float32)
    n = Network((2,), 1, params=src)
    src[0] = 1                                    # params are copied, not shared
    assert n.params[0] == 0
    assert repr(Network((3,), 1)) == "Network(198-3-1, encoder='tesauro198')"


def test_saved_files_are_not_private(tmp_path):
    import os
    import stat

    from bgengine.core import fileio

    path = tmp_path / "n.npz"
    Network(hidden=(4,), n_outputs=1, seed=1).save(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~fileio._UMASK


def test_weights_start_on_a_cache_line(tmp_path):
    """Every way of making a network puts its weights on a 64-byte boundary (the kernels'
    row loads then never straddle two cache lines; speed only, not results)."""
    import pickle
    net = Network((128,), 5, "contact", seed=4)
    net.save(tmp_path / "n.npz")
    made = [net, Network((7,), 4, "expert", seed=1),
            net.copy(), Network.load(tmp_path / "n.npz"), pickle.loads(pickle.dumps(net))]
    for m in made:
        assert m.params.ctypes.data % 64 == 0
        assert m.params.flags.c_contiguous and m.params.flags.writeable
    np.testing.assert_array_equal(made[2].params, net.params)
    np.testing.assert_array_equal(made[3].params, net.params)
