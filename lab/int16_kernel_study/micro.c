/* per-row throughput of the first-layer inner loops, L1-hot (16 rows), cycles from a
   dependent-add clock estimate: what the core can issue */
#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <immintrin.h>
#define T __attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl")))
#define NR 4096
static int16_t Wq[16 * 128] __attribute__((aligned(64)));
static float Wf[16 * 128] __attribute__((aligned(64)));
static int32_t idx[NR]; static float val[NR], ms[16];
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
int16_t sink16[128] __attribute__((aligned(64))); float sinkf[128] __attribute__((aligned(64)));
T __attribute__((noinline)) void add_only(void) {
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (int k = 0; k < NR; k++) { const int16_t *r = Wq + idx[k] * 128;
        a0 = _mm512_add_epi16(a0, _mm512_load_si512(r)); a1 = _mm512_add_epi16(a1, _mm512_load_si512(r + 32));
        a2 = _mm512_add_epi16(a2, _mm512_load_si512(r + 64)); a3 = _mm512_add_epi16(a3, _mm512_load_si512(r + 96)); }
    _mm512_store_si512(sink16, _mm512_add_epi16(_mm512_add_epi16(a0, a1), _mm512_add_epi16(a2, a3)));
}
T __attribute__((noinline)) void mulhrs_const(void) {
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (int k = 0; k < NR; k++) { const int16_t *r = Wq + idx[k] * 128; __m512i M = _mm512_set1_epi16(12345);
        a0 = _mm512_add_epi16(a0, _mm512_mulhrs_epi16(_mm512_load_si512(r), M)); a1 = _mm512_add_epi16(a1, _mm512_mulhrs_epi16(_mm512_load_si512(r + 32), M));
        a2 = _mm512_add_epi16(a2, _mm512_mulhrs_epi16(_mm512_load_si512(r + 64), M)); a3 = _mm512_add_epi16(a3, _mm512_mulhrs_epi16(_mm512_load_si512(r + 96), M)); }
    _mm512_store_si512(sink16, _mm512_add_epi16(_mm512_add_epi16(a0, a1), _mm512_add_epi16(a2, a3)));
}
T __attribute__((noinline)) void mulhrs_scalar(void) {   /* as bench.c's i16_rows */
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (int k = 0; k < NR; k++) { int i = idx[k]; const int16_t *r = Wq + i * 128;
        __m512i M = _mm512_set1_epi16((short)_mm_cvtss_si32(_mm_set_ss(val[k] * ms[i])));
        a0 = _mm512_add_epi16(a0, _mm512_mulhrs_epi16(_mm512_load_si512(r), M)); a1 = _mm512_add_epi16(a1, _mm512_mulhrs_epi16(_mm512_load_si512(r + 32), M));
        a2 = _mm512_add_epi16(a2, _mm512_mulhrs_epi16(_mm512_load_si512(r + 64), M)); a3 = _mm512_add_epi16(a3, _mm512_mulhrs_epi16(_mm512_load_si512(r + 96), M)); }
    _mm512_store_si512(sink16, _mm512_add_epi16(_mm512_add_epi16(a0, a1), _mm512_add_epi16(a2, a3)));
}
T __attribute__((noinline)) void fma_rows(void) {        /* as the engine's AVX-512 rows */
    __m512 x[8]; for (int v = 0; v < 8; v++) x[v] = _mm512_setzero_ps();
    for (int k = 0; k < NR; k++) { const float *r = Wf + idx[k] * 128; __m512 vv = _mm512_set1_ps(val[k]);
        for (int v = 0; v < 8; v++) x[v] = _mm512_fmadd_ps(vv, _mm512_load_ps(r + 16 * v), x[v]); }
    for (int v = 1; v < 8; v++) x[0] = _mm512_add_ps(x[0], x[v]); _mm512_store_ps(sinkf, x[0]);
}
static double ghz(void) { long x = 0; double t0 = now();
    for (long i = 0; i < 300000; i++) __asm__ volatile("add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0" : "+r"(x));
    return 3e6 / (now() - t0); }
static double best(void (*f)(void)) { double b = 1e30; for (int r = 0; r < 300; r++) { double t0 = now(); f(); double t = now() - t0; if (t < b) b = t; } return b / NR; }
int main(void) {
    for (int k = 0; k < NR; k++) { idx[k] = (k * 7) & 15; val[k] = 0.5f + (k % 5) * 0.25f; }
    for (int i = 0; i < 16; i++) ms[i] = 8000.0f;
    for (int i = 0; i < 16 * 128; i++) { Wq[i] = (int16_t)(i * 37 % 2000 - 1000); Wf[i] = Wq[i] * 1e-3f; }
    double g = 0; for (int r = 0; r < 20; r++) { double x = ghz(); if (x > g) g = x; }
    printf("clock %.2f GHz (best of 20)\n", g);
    for (int rep = 0; rep < 2; rep++) {
    printf("add only (int16)          %.2f cycles/row\n", best(add_only) * g);
    printf("mulhrs, constant value    %.2f cycles/row\n", best(mulhrs_const) * g);
    printf("mulhrs, value from float  %.2f cycles/row\n", best(mulhrs_scalar) * g);
    printf("float fma rows (engine)   %.2f cycles/row\n", best(fma_rows) * g);
    }
}
