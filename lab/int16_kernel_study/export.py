"""Export real weights, sparse inputs (full) and sibling-chain deltas for the int16 study."""
import numpy as np
from bgengine import load_default_network
from bgengine.core.encoders import encode
from bgengine.core.movegen import legal_afterstates
from bgengine.labelling.store import load_pool, keys_to_boards
from bgengine.labelling.classes import classify_positions, POSITION_CLASSES

ev = load_default_network(); net = ev.contact
W0, b0 = net.weights(0); W1, b1 = net.weights(1)
print(net, W0.shape, W1.shape, "out names", net.output_names)
rng = np.random.default_rng(1)
boards = keys_to_boards(load_pool(str(__import__('pathlib').Path(__file__).resolve().parents[2] / 'training/positions/train-r6.npz')).keys[:20000])
cls = classify_positions(boards)
race = POSITION_CLASSES.index('race')
boards = boards[cls != race]
print("contact positions", len(boards))

# full evaluations: the pool positions themselves
x = encode(boards, "contact")
ref_out = net.forward(x).astype(np.float32)     # engine's own outputs, to validate the C copy

# deltas: siblings (afterstates of one random roll) of a subset of positions, chained
# consecutively as the engine does (sibling valued just before it, chain <= 8).
sib_x = []; chains = []   # chains: list of (prev_index or -1, index)
for b in boards[:4000]:
    d1, d2 = rng.integers(1, 7, 2)
    a, _ = legal_afterstates(b, int(d1), int(d2))
    a = np.asarray(a)
    if len(a) < 2: continue
    if len(a) > 9: a = a[:9]   # generation order, as the engine chains them
    # only keep contact afterstates
    c = classify_positions(a); a = a[c != race]
    if len(a) < 2: continue
    e = encode(a, "contact")
    base = sum(len(s) for s in sib_x)
    sib_x.append(e)
    for i in range(len(a)):
        chains.append((base + i - 1 if i > 0 else -1, base + i))
sx = np.concatenate(sib_x).astype(np.float32)
sib_out = net.forward(sx).astype(np.float32)

def sparse(rows):
    idx = []; val = []; ptr = [0]
    for r in rows:
        nz = np.nonzero(r)[0]
        idx.append(nz.astype(np.int32)); val.append(r[nz].astype(np.float32)); ptr.append(ptr[-1] + len(nz))
    return np.concatenate(idx), np.concatenate(val), np.array(ptr, np.int32)

# delta lists for chained siblings: prev -> cur, symmetric difference, value new-old
didx = []; dval = []; dptr = [0]; dprev = []; dcur = []
for p, c in chains:
    if p < 0: continue
    diff = sx[c] - sx[p]
    nz = np.nonzero(diff)[0]
    didx.append(nz.astype(np.int32)); dval.append(diff[nz].astype(np.float32)); dptr.append(dptr[-1] + len(nz))
    dprev.append(p); dcur.append(c)

fi, fv, fp = sparse(x)
si, sv, sp = sparse(sx)
print("full: N=%d mean nnz %.1f" % (len(x), np.diff(fp).mean()))
print("delta: N=%d mean rows %.1f (median %d)" % (len(dprev), np.diff(dptr).mean(), np.median(np.diff(dptr))))
allv = np.concatenate([fv, np.concatenate(dval)])
print("full values: frac==1: %.3f; |v|!=1 max %.3f" % ((fv == 1).mean(), np.abs(fv[fv != 1]).max()))
dv = np.concatenate(dval)
print("delta values: frac |v|==1: %.3f" % (np.isin(dv, [1, -1]).mean()))
# which inputs ever carry non-{0,1} values
nonbin = np.unique(fi[(fv != 1)])
print("inputs with non-1 values:", len(nonbin), nonbin.tolist())
np.savez('data.npz', W0=W0, b0=b0, W1=W1, b1=b1, fi=fi, fv=fv, fp=fp,
         si=si, sv=sv, sp=sp, didx=np.concatenate(didx), dval=dv, dptr=np.array(dptr, np.int32),
         dprev=np.array(dprev, np.int32), dcur=np.array(dcur, np.int32),
         ref_out=ref_out, sib_out=sib_out)
# raw binaries for C
def w(name, a): np.ascontiguousarray(a).tofile('' + name + '.bin')
w('W0', W0.astype(np.float32)); w('b0', b0.astype(np.float32)); w('W1', W1.astype(np.float32)); w('b1', b1.astype(np.float32))
w('fi', fi); w('fv', fv); w('fp', fp); w('si', si); w('sv', sv); w('sp', sp)
w('didx', np.concatenate(didx)); w('dval', dv); w('dptr', np.array(dptr, np.int32))
w('dprev', np.array(dprev, np.int32)); w('dcur', np.array(dcur, np.int32))
w('ref_out', ref_out); w('sib_out', sib_out)
with open('sizes.txt', 'w') as f:
    f.write("%d %d %d %d\n" % (len(fp) - 1, len(sp) - 1, len(dptr) - 1, len(fi)))
print(open('sizes.txt').read())
