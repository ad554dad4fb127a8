# A barrier for the threads of one OpenMP team that spins briefly, then sleeps
# (thread_barrier.h: why not OpenMP's own), and the team's size and thread index.

cdef extern from "thread_barrier.h" nogil:
    ctypedef struct bg_barrier_t:
        pass
    # before the team starts; a wait spins up to spin_us microseconds, then sleeps
    void bg_barrier_init(bg_barrier_t* b, double spin_us) noexcept
    # every thread of the team (of `team` threads) calls it; returns once all have
    void bg_barrier_wait(bg_barrier_t* b, int team) noexcept
    int bg_team_index() noexcept    # inside a parallel region: this thread's index
    int bg_team_size() noexcept     # ... and the team's size (0 and 1 without OpenMP)
