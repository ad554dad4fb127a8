"""Where the int16 first layer's error comes from (numpy emulation, float64)."""
import numpy as np
d = np.load('data.npz')
W0, b0, W1, b1 = [d[k].astype(np.float64) for k in ('W0', 'b0', 'W1', 'b1')]
qW0 = np.fromfile('q_W0.bin', np.int16).reshape(250, 128).astype(np.float64)
invs = np.fromfile('q_invs.bin', np.float32).astype(np.float64)
ms = np.fromfile('q_mscale.bin', np.float32).astype(np.float64)
real = ms != 32767
N = len(d['fp']) - 1
x = np.zeros((N, 250))
for n in range(N): x[n, d['fi'][d['fp'][n]:d['fp'][n+1]]] = d['fv'][d['fp'][n]:d['fp'][n+1]]
sig = lambda z: 1 / (1 + np.exp(-np.clip(z, -16, 16)))
def out(pre):
    o = sig(sig(pre) @ W1 + b1); return o, 2*o[:,0]-1+o[:,1]-o[:,3]+o[:,2]-o[:,4]
o0, e0 = out(x @ W0 + b0)
R = np.where(real, 32768 / ms, 1.0)
Wdq = qW0 / R[:, None] * invs[None, :]           # dequantised weights
o1, e1 = out(x @ Wdq + np.round(b0 / invs) * invs)
print("weights rounded only (exact sums):   equity max %.2e mean %.2e" % (np.abs(e1-e0).max(), np.abs(e1-e0).mean()))
# + value rounding and per-product mulhrs rounding (as the kernel)
m = np.rint(x * ms[None, :])
acc = np.round(b0 / invs)[None, :].repeat(N, 0)
for i in range(250):
    nz = m[:, i] != 0
    if nz.any(): acc[nz] += np.floor((qW0[i][None, :] * m[nz, i][:, None] + 16384) / 32768)
o2, e2 = out(acc * invs)
print("full int16 first layer emulated:     equity max %.2e mean %.2e" % (np.abs(e2-e0).max(), np.abs(e2-e0).mean()))
# what a 2x finer scale would give (int32 accumulators; not int16-safe)
