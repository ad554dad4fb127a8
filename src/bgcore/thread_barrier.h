/* A barrier for the threads of one OpenMP team that spins for a short while, then sleeps.
 *
 * OpenMP's own barriers either spin for long (the default wait policy: a waiting thread
 * holds its core while the thread it waits for may be descheduled by another process, which
 * on a busy 2-core machine made two training threads several times slower than one) or
 * sleep at once (OMP_WAIT_POLICY=passive: every wait then pays the wake-up of a sleeping
 * thread, about 30-60 us on a KVM guest, more when its virtual CPU has halted).  The wait
 * policy is process-wide and read once from the environment; this barrier keeps the choice
 * inside the library: spin up to `spin_us` microseconds (a wait shorter than that costs no
 * wake-up), then sleep (a futex on Linux; elsewhere the thread yields its core in a loop).
 *
 * Usage: bg_barrier_init once, before the team starts; every team thread then calls
 * bg_barrier_wait(b, team) with the same team size; the call returns once all have
 * arrived, with every write made before the barrier by any thread visible after it.
 *
 * Team helpers: bg_team_index / bg_team_size, inside an OpenMP parallel region (0 and 1
 * when built without OpenMP, where the region runs on the calling thread alone).
 */
#ifndef BG_THREAD_BARRIER_H
#define BG_THREAD_BARRIER_H

#include <stdatomic.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
static inline int bg_team_index(void) { return omp_get_thread_num(); }
static inline int bg_team_size(void) { return omp_get_num_threads(); }
#else
static inline int bg_team_index(void) { return 0; }
static inline int bg_team_size(void) { return 1; }
#endif

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <limits.h>
static inline void bg_sleep_while(atomic_uint *word, unsigned int value)
{
    /* returns at once if *word != value; spurious returns are fine (the caller loops) */
    syscall(SYS_futex, (unsigned int *)word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}
static inline void bg_wake_all(atomic_uint *word)
{
    syscall(SYS_futex, (unsigned int *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
#elif defined(_WIN32)
#include <windows.h>
static inline void bg_sleep_while(atomic_uint *word, unsigned int value) { (void)word; (void)value; SwitchToThread(); }
static inline void bg_wake_all(atomic_uint *word) { (void)word; }
#else
#include <sched.h>
static inline void bg_sleep_while(atomic_uint *word, unsigned int value) { (void)word; (void)value; sched_yield(); }
static inline void bg_wake_all(atomic_uint *word) { (void)word; }
#endif

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64)
#include <immintrin.h>
static inline void bg_cpu_relax(void) { _mm_pause(); }
#else
static inline void bg_cpu_relax(void) { }
#endif

typedef struct {
    /* the fields each on a cache line of their own: arrivals are written by every thread */
    _Alignas(64) atomic_uint arrived;   /* threads arrived in the current round */
    _Alignas(64) atomic_uint round;     /* rounds completed; waiters watch it change */
    atomic_uint sleepers;               /* threads asleep (or about to be) on `round` */
    double spin_s;                      /* seconds of spinning before sleeping */
    char _pad[64];
} bg_barrier_t;

static inline void bg_barrier_init(bg_barrier_t *b, double spin_us)
{
    atomic_init(&b->arrived, 0);
    atomic_init(&b->round, 0);
    atomic_init(&b->sleepers, 0);
    b->spin_s = spin_us * 1e-6;
}

static inline double bg_barrier_clock(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static inline void bg_barrier_wait(bg_barrier_t *b, int team)
{
    unsigned int round = atomic_load(&b->round);
    if (atomic_fetch_add(&b->arrived, 1) + 1 == (unsigned int)team) {
        /* the last to arrive opens the next round; sequentially consistent order with the
         * sleepers' count: either a sleeper is counted here, or its futex sees the new round */
        atomic_store(&b->arrived, 0);
        atomic_fetch_add(&b->round, 1);
        if (atomic_load(&b->sleepers))
            bg_wake_all(&b->round);
        return;
    }
    double until = b->spin_s > 0 ? bg_barrier_clock() + b->spin_s : 0;
    for (unsigned int i = 1; atomic_load(&b->round) == round; i++) {
        bg_cpu_relax();
        if ((i & 63) == 0 && bg_barrier_clock() >= until)
            break;
    }
    while (atomic_load(&b->round) == round) {
        atomic_fetch_add(&b->sleepers, 1);
        bg_sleep_while(&b->round, round);
        atomic_fetch_sub(&b->sleepers, 1);
    }
}

#endif
