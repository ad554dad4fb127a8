/* int16 vs float forward pass of the 250-128-5 contact net: timing and accuracy.
 *
 * The float kernel is the engine's own: nnkernels.h included unchanged (bg_forward1_avx512,
 * called as network.pyx does, with W1 transposed).  Built with the engine's flags
 * (-O3 -ffp-contract=off).
 *
 * Variants (each: full = from b0 over a position's rows; delta = from a sibling's sums over
 * the differing rows, values new - old, keeping the new sums as the engine does):
 *   F        float: bg_forward1_avx512
 *   Ia       int16 first layer (every row by mulhrs), int16 -> float, float sigmoid, float output
 *   Ib       int16 first layer (every row by mulhrs), int16 PWL sigmoid, VNNI output (int32)
 *   Ic       as Ib, rows of value +-1 on binary inputs by plain add/sub (branch per row)
 * and parts: Frows/Irows (first layer only), Ftail/Ibtail (nnz = 0: sigmoid + output only).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../../src/bgcore/nnkernels.h"

#define H 128
#define K 5
#define DIR ""
#define I16 __attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni,avx512dq")))

static void *load(const char *name, size_t *n_bytes)
{
    char path[256];
    FILE *f;
    long len;
    void *p;
    snprintf(path, sizeof path, DIR "%s.bin", name);
    f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END); len = ftell(f); fseek(f, 0, SEEK_SET);
    p = aligned_alloc(64, ((size_t)len + 63) / 64 * 64 + 64);
    if (fread(p, 1, (size_t)len, f) != (size_t)len) { perror("read"); exit(1); }
    fclose(f);
    if (n_bytes) *n_bytes = (size_t)len;
    return p;
}

/* data */
static float *W0, *b0, *W1, *W1t, *b1;
static int32_t *fih, *fi, *fp, *si, *sp, *didx, *dptr, *dprev, *dcur;
static float *fv, *sv, *dval, *ref_out, *sib_out;
static int Nf, Ns, Nd;
/* int16 parameters */
static int16_t *qW0, *qb0, *qc, *qW1t, *qA, *qB;
static float *qinvs, *qmscale, *qoutscale;
static uint8_t realrow[256];

/* ------------------------------------------------------------------ int16 kernels */

/* acc = pre + sum_k mulhrs(row_k, m_k), m_k = rint(v_k * mscale[i_k]) (binary rows: +-32767,
 * exact since their |weights| < 16384; real rows: stored at R_i x scale, m = v 32768 / R_i) */
I16 static inline void i16_rows(const int16_t *pre, const int32_t *idx, const float *val,
                                int nnz, __m512i a[4])
{
    __m512i a0 = _mm512_load_si512(pre), a1 = _mm512_load_si512(pre + 32),
            a2 = _mm512_load_si512(pre + 64), a3 = _mm512_load_si512(pre + 96);
    int k;
    for (k = 0; k < nnz; k++) {
        int i = idx[k];
        const int16_t *row = qW0 + (size_t)i * H;
        int m = _mm_cvtss_si32(_mm_set_ss(val[k] * qmscale[i]));
        __m512i M = _mm512_set1_epi16((short)m);
        a0 = _mm512_add_epi16(a0, _mm512_mulhrs_epi16(_mm512_load_si512(row), M));
        a1 = _mm512_add_epi16(a1, _mm512_mulhrs_epi16(_mm512_load_si512(row + 32), M));
        a2 = _mm512_add_epi16(a2, _mm512_mulhrs_epi16(_mm512_load_si512(row + 64), M));
        a3 = _mm512_add_epi16(a3, _mm512_mulhrs_epi16(_mm512_load_si512(row + 96), M));
    }
    a[0] = a0; a[1] = a1; a[2] = a2; a[3] = a3;
}

/* the same, binary rows by add/sub (a branch per row) */
I16 static inline void i16_rows_branch(const int16_t *pre, const int32_t *idx, const float *val,
                                       int nnz, __m512i a[4])
{
    __m512i a0 = _mm512_load_si512(pre), a1 = _mm512_load_si512(pre + 32),
            a2 = _mm512_load_si512(pre + 64), a3 = _mm512_load_si512(pre + 96);
    int k;
    for (k = 0; k < nnz; k++) {
        int i = idx[k];
        const int16_t *row = qW0 + (size_t)i * H;
        float v = val[k];
        if (!realrow[i]) {
            if (v > 0) {
                a0 = _mm512_add_epi16(a0, _mm512_load_si512(row));
                a1 = _mm512_add_epi16(a1, _mm512_load_si512(row + 32));
                a2 = _mm512_add_epi16(a2, _mm512_load_si512(row + 64));
                a3 = _mm512_add_epi16(a3, _mm512_load_si512(row + 96));
            } else {
                a0 = _mm512_sub_epi16(a0, _mm512_load_si512(row));
                a1 = _mm512_sub_epi16(a1, _mm512_load_si512(row + 32));
                a2 = _mm512_sub_epi16(a2, _mm512_load_si512(row + 64));
                a3 = _mm512_sub_epi16(a3, _mm512_load_si512(row + 96));
            }
        } else {
            int m = _mm_cvtss_si32(_mm_set_ss(v * qmscale[i]));
            __m512i M = _mm512_set1_epi16((short)m);
            a0 = _mm512_add_epi16(a0, _mm512_mulhrs_epi16(_mm512_load_si512(row), M));
            a1 = _mm512_add_epi16(a1, _mm512_mulhrs_epi16(_mm512_load_si512(row + 32), M));
            a2 = _mm512_add_epi16(a2, _mm512_mulhrs_epi16(_mm512_load_si512(row + 64), M));
            a3 = _mm512_add_epi16(a3, _mm512_mulhrs_epi16(_mm512_load_si512(row + 96), M));
        }
    }
    a[0] = a0; a[1] = a1; a[2] = a2; a[3] = a3;
}

/* sigma(x) in Q15 (32767 = 1) of x_q (scale s_h = 2^18 / c_h per lane): 64 line segments of
 * width 0.25 on |x| in [0, 16), sigma(-x) = 1 - sigma(x) */
I16 static inline __m512i i16_sigmoid(__m512i x, __m512i C, __m512i Alo, __m512i Ahi,
                                      __m512i Blo, __m512i Bhi)
{
    const __m512i one = _mm512_set1_epi16(32767);
    __m512i ax = _mm512_abs_epi16(x);
    __m512i seg = _mm512_mulhi_epu16(ax, C);            /* floor(4 |x|) */
    __m512i fr = _mm512_srli_epi16(_mm512_mullo_epi16(ax, C), 1);   /* fraction, Q15 */
    __mmask32 over = _mm512_cmpgt_epu16_mask(seg, _mm512_set1_epi16(63));
    __mmask32 neg = _mm512_movepi16_mask(x);
    __m512i A = _mm512_permutex2var_epi16(Alo, seg, Ahi);
    __m512i B = _mm512_permutex2var_epi16(Blo, seg, Bhi);
    __m512i y = _mm512_adds_epi16(A, _mm512_mulhrs_epi16(B, fr));
    y = _mm512_mask_mov_epi16(y, over, one);
    return _mm512_mask_sub_epi16(y, neg, one, y);
}

/* 8 vectors of 16 int32 -> their 8 horizontal sums */
I16 static inline __m256i hsum8(__m512i v0, __m512i v1, __m512i v2, __m512i v3, __m512i v4,
                                __m512i v5, __m512i v6, __m512i v7)
{
    __m512i t0 = _mm512_add_epi32(_mm512_unpacklo_epi32(v0, v1), _mm512_unpackhi_epi32(v0, v1));
    __m512i t1 = _mm512_add_epi32(_mm512_unpacklo_epi32(v2, v3), _mm512_unpackhi_epi32(v2, v3));
    __m512i t2 = _mm512_add_epi32(_mm512_unpacklo_epi32(v4, v5), _mm512_unpackhi_epi32(v4, v5));
    __m512i t3 = _mm512_add_epi32(_mm512_unpacklo_epi32(v6, v7), _mm512_unpackhi_epi32(v6, v7));
    __m512i u0 = _mm512_add_epi32(_mm512_unpacklo_epi64(t0, t1), _mm512_unpackhi_epi64(t0, t1));
    __m512i u1 = _mm512_add_epi32(_mm512_unpacklo_epi64(t2, t3), _mm512_unpackhi_epi64(t2, t3));
    __m512i w = _mm512_add_epi32(_mm512_shuffle_i32x4(u0, u1, _MM_SHUFFLE(2, 0, 2, 0)),
                                 _mm512_shuffle_i32x4(u0, u1, _MM_SHUFFLE(3, 1, 3, 1)));
    __m512i z = _mm512_add_epi32(w, _mm512_shuffle_i32x4(w, w, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm512_castsi512_si256(_mm512_shuffle_i32x4(z, z, _MM_SHUFFLE(0, 0, 2, 0)));
}

/* Ib tail: int sigmoid of the 4 accumulators, VNNI output layer, float output sigmoid */
I16 static inline void i16_tail(const __m512i a[4], float *act2)
{
    const __m512i Alo = _mm512_load_si512(qA), Ahi = _mm512_load_si512(qA + 32),
                  Blo = _mm512_load_si512(qB), Bhi = _mm512_load_si512(qB + 32);
    __m512i y[4], acc[K];
    int j, k;
    for (j = 0; j < 4; j++)
        y[j] = i16_sigmoid(a[j], _mm512_load_si512(qc + 32 * j), Alo, Ahi, Blo, Bhi);
    for (k = 0; k < K; k++) acc[k] = _mm512_setzero_si512();
    for (j = 0; j < 4; j++)
        for (k = 0; k < K; k++)
            acc[k] = _mm512_dpwssd_epi32(acc[k], y[j], _mm512_load_si512(qW1t + k * H + 32 * j));
    {
        __m512i z = _mm512_setzero_si512();
        __m256i s = hsum8(acc[0], acc[1], acc[2], acc[3], acc[4], z, z, z);
        __m256i km = bg_mask8(K);
        __m256 o = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_maskload_ps(qoutscale, km),
                                   _mm256_maskload_ps(b1, km));
        float t[8];
        _mm256_storeu_ps(t, bg_sigmoid8(o));
        for (k = 0; k < K; k++) act2[k] = t[k];
    }
}

/* Ia tail: int16 -> float pre-activations, the engine's float sigmoid and output layer */
I16 static inline void f_tail(const __m512i a[4], float *act2)
{
    float act1[H] __attribute__((aligned(64)));
    int j;
    for (j = 0; j < 4; j++) {
        __m512i lo = _mm512_cvtepi16_epi32(_mm512_castsi512_si256(a[j]));
        __m512i hi = _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(a[j], 1));
        _mm512_store_ps(act1 + 32 * j, bg_sigmoid16(_mm512_mul_ps(_mm512_cvtepi32_ps(lo),
                                                   _mm512_load_ps(qinvs + 32 * j))));
        _mm512_store_ps(act1 + 32 * j + 16, bg_sigmoid16(_mm512_mul_ps(_mm512_cvtepi32_ps(hi),
                                                   _mm512_load_ps(qinvs + 32 * j + 16))));
    }
    bg_output8_transposed(act1, H, W1t, b1, K, act2);
}

I16 static inline void keep4(int16_t *keep, const __m512i a[4])
{
    if (keep) {
        _mm512_store_si512(keep, a[0]); _mm512_store_si512(keep + 32, a[1]);
        _mm512_store_si512(keep + 64, a[2]); _mm512_store_si512(keep + 96, a[3]);
    }
}

I16 static __attribute__((noinline)) void fwd_Ia(const int16_t *pre, const int32_t *idx,
        const float *val, int nnz, float *act2, int16_t *keep)
{
    __m512i a[4];
    i16_rows(pre, idx, val, nnz, a);
    keep4(keep, a);
    f_tail(a, act2);
}

I16 static __attribute__((noinline)) void fwd_Ib(const int16_t *pre, const int32_t *idx,
        const float *val, int nnz, float *act2, int16_t *keep)
{
    __m512i a[4];
    i16_rows(pre, idx, val, nnz, a);
    keep4(keep, a);
    i16_tail(a, act2);
}

I16 static __attribute__((noinline)) void fwd_Ic(const int16_t *pre, const int32_t *idx,
        const float *val, int nnz, float *act2, int16_t *keep)
{
    __m512i a[4];
    i16_rows_branch(pre, idx, val, nnz, a);
    keep4(keep, a);
    i16_tail(a, act2);
}

I16 static __attribute__((noinline)) void rows_I(const int16_t *pre, const int32_t *idx,
        const float *val, int nnz, float *act2, int16_t *keep)
{
    __m512i a[4];
    (void)act2;
    i16_rows(pre, idx, val, nnz, a);
    keep4(keep, a);
}

/* ------------------------------------------------------------------ float wrappers */

static __attribute__((noinline)) void fwd_F(const float *pre, const int32_t *idx,
        const float *val, int nnz, float *act2, float *keep)
{
    float act1[H] __attribute__((aligned(64)));
    bg_forward1_avx512(W0, H, pre, idx, val, nnz, W1, W1t, b1, K, act1, act2, keep);
}

static __attribute__((noinline)) void rows_F(const float *pre, const int32_t *idx,
        const float *val, int nnz, float *act2, float *keep)
{
    (void)act2;
    bg_add_rows_avx512(W0, H, idx, val, nnz, pre, keep);
}

/* ------------------------------------------------------------------ harness */

typedef void (*ffn)(const float *, const int32_t *, const float *, int, float *, float *);
typedef void (*ifn)(const int16_t *, const int32_t *, const float *, int, float *, int16_t *);

static float *fsums;       /* (Ns, H) float sums of the siblings (full float pass) */
static int16_t *isums;     /* (Ns, H) int16 sums of the siblings (full int pass) */
static float fkeep[H] __attribute__((aligned(64)));
static int16_t ikeep[H] __attribute__((aligned(64)));
static int16_t zero16[H] __attribute__((aligned(64)));
static float zerof[H] __attribute__((aligned(64)));

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* mode 0 full, 1 delta, 2 tail only (nnz 0) */
static double run_f(ffn f, int mode, float *out, int start, int cnt)
{
    int N = (mode == 1 || mode == 3) ? Nd : Nf, n, e;
    double t0;
    if (cnt <= 0 || cnt > N) { start = 0; cnt = N; }
    t0 = now();
    for (e = 0, n = start % N; e < cnt; e++, n = n + 1 == N ? 0 : n + 1) {
        if (mode == 0) f(b0, fi + fp[n], fv + fp[n], fp[n + 1] - fp[n], out + K * n, fkeep);
        else if (mode == 1)
            f(fsums + (size_t)dprev[n] * H, didx + dptr[n], dval + dptr[n], dptr[n + 1] - dptr[n],
              out + K * n, fkeep);
        else if (mode == 3)
            f(fsums + (size_t)(dprev[n] & 15) * H, didx + dptr[n], dval + dptr[n],
              dptr[n + 1] - dptr[n], out + K * n, fkeep);
        else if (mode == 4) f(b0, fih + fp[n], fv + fp[n], fp[n + 1] - fp[n], out + K * n, fkeep);
        else f(fsums + (size_t)(n % Ns) * H, fi, fv, 0, out + K * n, NULL);
    }
    return (now() - t0) / cnt;
}

static double run_i(ifn f, int mode, float *out, int start, int cnt)
{
    int N = (mode == 1 || mode == 3) ? Nd : Nf, n, e;
    double t0;
    if (cnt <= 0 || cnt > N) { start = 0; cnt = N; }
    t0 = now();
    for (e = 0, n = start % N; e < cnt; e++, n = n + 1 == N ? 0 : n + 1) {
        if (mode == 0) f(qb0, fi + fp[n], fv + fp[n], fp[n + 1] - fp[n], out + K * n, ikeep);
        else if (mode == 1)
            f(isums + (size_t)dprev[n] * H, didx + dptr[n], dval + dptr[n], dptr[n + 1] - dptr[n],
              out + K * n, ikeep);
        else if (mode == 3)
            f(isums + (size_t)(dprev[n] & 15) * H, didx + dptr[n], dval + dptr[n],
              dptr[n + 1] - dptr[n], out + K * n, ikeep);
        else if (mode == 4) f(qb0, fih + fp[n], fv + fp[n], fp[n + 1] - fp[n], out + K * n, ikeep);
        else f(isums + (size_t)(n % Ns) * H, fi, fv, 0, out + K * n, NULL);
    }
    return (now() - t0) / cnt;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double equity(const float *p) { return 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]; }

static void accuracy(const char *name, const float *a, const float *ref, const int *map, int N)
{
    double maxo = 0, sumo = 0, maxe = 0, sume = 0;
    int n, k;
    for (n = 0; n < N; n++) {
        const float *r = ref + K * (map ? map[n] : n);
        for (k = 0; k < K; k++) {
            double d = fabs((double)a[K * n + k] - r[k]);
            if (d > maxo) maxo = d;
            sumo += d;
        }
        {
            double d = fabs(equity(a + K * n) - equity(r));
            if (d > maxe) maxe = d;
            sume += d;
        }
    }
    printf("  %-28s outputs max %.2e mean %.2e | equity max %.2e mean %.2e\n", name, maxo,
           sumo / (N * K), maxe, sume / N);
}

/* core clock: a chain of dependent adds, one cycle each */
static double ghz(void)
{
    long n = 300000, x = 0;
    double t0 = now();
    long i;
    for (i = 0; i < n; i++)
        __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "add $1, %0\n\tadd $1, %0" : "+r"(x));
    return 10.0 * n / (now() - t0);
}

int main(int argc, char **argv)
{
    size_t nb;
    int rounds = argc > 1 ? atoi(argv[1]) : 41, B = argc > 2 ? atoi(argv[2]) : 1024, n, k, r, v;
    W0 = load("W0", NULL); b0 = load("b0", NULL); W1 = load("W1", NULL); b1 = load("b1", NULL);
    W1t = load("W1t", NULL);
    fi = load("fi", NULL); fv = load("fv", NULL); fp = load("fp", &nb); Nf = (int)(nb / 4) - 1;
    si = load("si", NULL); sv = load("sv", NULL); sp = load("sp", &nb); Ns = (int)(nb / 4) - 1;
    didx = load("didx", NULL); dval = load("dval", NULL); dptr = load("dptr", &nb);
    Nd = (int)(nb / 4) - 1;
    dprev = load("dprev", NULL); dcur = load("dcur", NULL);
    ref_out = load("ref_out", NULL); sib_out = load("sib_out", NULL);
    qW0 = load("q_W0", NULL); qb0 = load("q_b0", NULL); qc = load("q_c", NULL);
    qinvs = load("q_invs", NULL); qmscale = load("q_mscale", NULL); qW1t = load("q_W1t", NULL);
    qoutscale = load("q_outscale", NULL); qA = load("q_A", NULL); qB = load("q_B", NULL);
    for (k = 0; k < 250; k++) realrow[k] = qmscale[k] != 32767.0f;
    /* L1-hot copy of the full rows: each index mapped into 32 inputs of the same kind
       (binary or real, so the fixed-point values stay in range); timing only */
    {
        int hb[32], hr[32], nb2 = 0, nr = 0;
        for (k = 0; k < 250; k++) {
            if (realrow[k] && nr < 16) hr[nr++] = k;
            if (!realrow[k] && nb2 < 16) hb[nb2++] = k;
        }
        fih = malloc((size_t)fp[Nf] * 4);
        for (k = 0; k < fp[Nf]; k++) fih[k] = realrow[fi[k]] ? hr[fi[k] % 16] : hb[fi[k] % 16];
    }
    printf("positions: %d full (mean rows %.1f), %d deltas (mean rows %.1f) over %d siblings\n",
           Nf, (double)fp[Nf] / Nf, Nd, (double)dptr[Nd] / Nd, Ns);
    {   /* fixed-point value range check */
        int bad = 0;
        for (k = 0; k < fp[Nf]; k++) if (fabsf(fv[k] * qmscale[fi[k]]) > 32767.5f) bad++;
        for (k = 0; k < dptr[Nd]; k++) if (fabsf(dval[k] * qmscale[didx[k]]) > 32767.5f) bad++;
        printf("values out of int16 fixed-point range: %d\n", bad);
    }

    float *o_F = calloc((size_t)Nf * K, 4), *o_Ia = calloc((size_t)Nf * K, 4),
          *o_Ib = calloc((size_t)Nf * K, 4), *o_Ic = calloc((size_t)Nf * K, 4),
          *o_x = calloc((size_t)Nf * K, 4), *o_sibF = calloc((size_t)Ns * K, 4),
          *d_F = calloc((size_t)Nd * K, 4), *d_Ia = calloc((size_t)Nd * K, 4),
          *d_Ib = calloc((size_t)Nd * K, 4), *d_Ic = calloc((size_t)Nd * K, 4),
          *o_sibI = calloc((size_t)Ns * K, 4);
    fsums = aligned_alloc(64, (size_t)Ns * H * 4);
    isums = aligned_alloc(64, (size_t)Ns * H * 2);
    /* the siblings' own sums, full passes */
    for (n = 0; n < Ns; n++) {
        fwd_F(b0, si + sp[n], sv + sp[n], sp[n + 1] - sp[n], o_sibF + K * n, fsums + (size_t)n * H);
        fwd_Ib(qb0, si + sp[n], sv + sp[n], sp[n + 1] - sp[n], o_sibI + K * n, isums + (size_t)n * H);
    }
    {   /* int16 sums range actually used */
        int mx = 0;
        for (n = 0; n < Ns * H; n++) if (abs(isums[n]) > mx) mx = abs(isums[n]);
        printf("max |int16 pre-activation| over siblings: %d of 32767\n", mx);
    }

    /* accuracy (one pass of each) */
    run_f(fwd_F, 0, o_F, 0, 0); run_i(fwd_Ia, 0, o_Ia, 0, 0); run_i(fwd_Ib, 0, o_Ib, 0, 0); run_i(fwd_Ic, 0, o_Ic, 0, 0);
    run_f(fwd_F, 1, d_F, 0, 0); run_i(fwd_Ia, 1, d_Ia, 0, 0); run_i(fwd_Ib, 1, d_Ib, 0, 0); run_i(fwd_Ic, 1, d_Ic, 0, 0);
    printf("\naccuracy, full evaluations (%d contact positions), against the float kernel:\n", Nf);
    accuracy("F vs engine net.forward", o_F, ref_out, NULL, Nf);
    accuracy("Ia (int16 L1, float rest)", o_Ia, o_F, NULL, Nf);
    accuracy("Ib (int16 all, PWL sigmoid)", o_Ib, o_F, NULL, Nf);
    accuracy("Ic (Ib with add/sub rows)", o_Ic, o_F, NULL, Nf);
    printf("accuracy, delta evaluations (%d siblings), against the float kernel's full sum:\n", Nd);
    accuracy("F delta vs F full", d_F, o_sibF, dcur, Nd);
    accuracy("Ia delta", d_Ia, o_sibF, dcur, Nd);
    accuracy("Ib delta", d_Ib, o_sibF, dcur, Nd);
    accuracy("Ic delta", d_Ic, o_sibF, dcur, Nd);
    accuracy("Ib delta vs Ib full", d_Ib, o_sibI, dcur, Nd);

    /* timing: alternating rounds, medians */
    enum { NV = 20 };
    static const char *names[NV] = {
        "F full", "Ia full", "Ib full", "Ic full", "Frows full", "Irows full",
        "F delta", "Ia delta", "Ib delta", "Ic delta", "Frows delta", "Irows delta",
        "F tail (nnz 0)", "Ib tail (nnz 0)",
        "F delta hot pre", "Ib delta hot pre", "F full L1 rows", "Ib full L1 rows",
        "Frows full L1", "Irows full L1"};
    double *t = calloc((size_t)NV * rounds, sizeof(double)), med[NV], ghz_s[64];
    int ng = 0;
    for (r = 0; r < rounds; r++) {
        for (v = 0; v < NV; v++) {
            int w = (v + r) % NV;     /* rotate the order each round */
            double x;
            int st = (int)((r * 7919L) % 16384);
            switch (w) {
            case 0: x = run_f(fwd_F, 0, o_x, 0, 0); break;
            case 1: x = run_i(fwd_Ia, 0, o_x, 0, 0); break;
            case 2: x = run_i(fwd_Ib, 0, o_x, 0, 0); break;
            case 3: x = run_i(fwd_Ic, 0, o_x, 0, 0); break;
            case 4: x = run_f(rows_F, 0, o_x, st, B); break;
            case 5: x = run_i(rows_I, 0, o_x, st, B); break;
            case 6: x = run_f(fwd_F, 1, o_x, 0, 0); break;
            case 7: x = run_i(fwd_Ia, 1, o_x, 0, 0); break;
            case 8: x = run_i(fwd_Ib, 1, o_x, 0, 0); break;
            case 9: x = run_i(fwd_Ic, 1, o_x, 0, 0); break;
            case 10: x = run_f(rows_F, 1, o_x, st, B); break;
            case 11: x = run_i(rows_I, 1, o_x, st, B); break;
            case 12: x = run_f(fwd_F, 2, o_x, st, B); break;
            case 13: x = run_i(fwd_Ib, 2, o_x, st, B); break;
            case 14: x = run_f(fwd_F, 3, o_x, st, B); break;
            case 15: x = run_i(fwd_Ib, 3, o_x, st, B); break;
            case 16: x = run_f(fwd_F, 4, o_x, st, B); break;
            case 17: x = run_i(fwd_Ib, 4, o_x, st, B); break;
            case 18: x = run_f(rows_F, 4, o_x, st, B); break;
            default: x = run_i(rows_I, 4, o_x, st, B); break;
            }
            t[w * rounds + r] = x;
        }
        if (ng < 64) ghz_s[ng++] = ghz();
    }
    qsort(ghz_s, ng, sizeof(double), cmpd);
    if (getenv("DUMP")) {
        for (r = 0; r < rounds; r++) {
            printf("r%3d st %5d:", r, (int)((r * 7919L) % 16384));
            for (v = 0; v < NV; v++) printf(" %5.0f", t[v * rounds + r]);
            printf("\n");
        }
    }
    printf("\ncore clock (dependent-add chain, 3M-cycle chunks): max %.2f GHz, median %.2f GHz of %d\n",
           ghz_s[ng - 1], ghz_s[ng / 2], ng);
    {   /* per-round ratios (variants timed next to each other in the same round) */
        static const int pairs[][2] = {{0, 1}, {0, 2}, {0, 3}, {6, 7}, {6, 8}, {6, 9}, {14, 15},
                                       {4, 5}, {10, 11}, {12, 13}, {18, 19}, {16, 17}};
        int p;
        double *q = malloc(rounds * sizeof(double));
        printf("per-round speed ratios (median [p25, p75] over rounds):\n");
        for (p = 0; p < (int)(sizeof pairs / sizeof pairs[0]); p++) {
            for (r = 0; r < rounds; r++) q[r] = t[pairs[p][0] * rounds + r] / t[pairs[p][1] * rounds + r];
            qsort(q, rounds, sizeof(double), cmpd);
            printf("  %-16s / %-16s %.2fx [%.2f, %.2f]\n", names[pairs[p][0]], names[pairs[p][1]],
                   q[rounds / 2], q[rounds / 4], q[3 * rounds / 4]);
        }
    }
    printf("timing, %d alternating rounds of %d evaluations each (ns/eval: median [p10, p75]; "
           "cycles of the median at the max clock):\n", rounds, B);
    for (v = 0; v < NV; v++) {
        qsort(t + v * rounds, rounds, sizeof(double), cmpd);
        med[v] = t[v * rounds + rounds / 2];
        printf("  %-18s %7.1f ns  [%6.1f, %6.1f]  %6.0f cyc\n", names[v], med[v],
               t[v * rounds + rounds / 10], t[v * rounds + 3 * rounds / 4], med[v] * ghz_s[ng - 1]);
    }
    printf("speed-up vs F: full Ia %.2fx Ib %.2fx Ic %.2fx | delta Ia %.2fx Ib %.2fx Ic %.2fx\n",
           med[0] / med[1], med[0] / med[2], med[0] / med[3], med[6] / med[7], med[6] / med[8],
           med[6] / med[9]);
    return 0;
}
