# C-level API of the feature encoders.
#
# An encoder maps a position (side on roll in row 1) to float32 network
# inputs.  The hot path uses the sparse form: most inputs are 0, so an
# encoder writes only the nonzero ones as (index, value) pairs, ascending by
# index, and the network's first layer adds just those weight rows.
#
#     cdef int32_t idx[MAX_INPUTS]
#     cdef real_t val[MAX_INPUTS]
#     nnz = encode_sparse(ENC_TESAURO198, &board, idx, val)

from bgengine._types cimport int32_t, real_t
from bgengine.board cimport board_t

cdef enum:
    ENC_TESAURO198 = 0      # TD-Gammon 0.0: 198 inputs
    ENC_TESAURO212 = 1      # tesauro198 + race and maximal-block units: 212
    ENC_EXPERT = 2          # tesauro198 points + hand-made features: 222
    N_ENCODERS = 3
    MAX_INPUTS = 256        # upper bound on any encoder's size (buffers)
    N_SIDE_UNITS = 98       # every encoder starts with the side on roll's 98 point units
                            # (inputs 0..97), then the other side's (98..195)

cdef int encoder_size(int encoder) noexcept nogil
cdef int encode_sparse(int encoder, const board_t* b, int32_t* idx, real_t* val) noexcept nogil
cdef void encode_dense(int encoder, const board_t* b, real_t* out) noexcept nogil

# Features the expert encoder is built from, exposed for tests and players.
cdef int shots_36(const board_t* b, int roller) noexcept nogil
cdef int escapes_36(const board_t* b, int side) noexcept nogil
cdef int longest_prime(const board_t* b, int side) noexcept nogil
