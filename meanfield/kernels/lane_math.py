"""exp, tanh and log as branch-free arithmetic, so that a loop over lanes calling them compiles to vector code.

Why they exist: numba turns ``math.exp``/``math.tanh``/``math.log`` into calls to the C library, one
scalar call per element, and LLVM does not vectorise a loop around such a call (it can only split a vector
into scalar calls). numba can use Intel's SVML for vector versions, but only with an SVML-enabled llvmlite,
which pip's wheels are not. These functions are straight-line code (comparisons become selects), so LLVM
vectorises a loop over lanes that calls them; tests/core/test_lane_math.py checks the generated assembly.

They are plain Python as well (numpy scalars only), so the same definitions run in numba's CUDA simulator
and compile as CUDA device functions: the CPU and the GPU evaluate the map with the same arithmetic.

Method (Cody & Waite range reduction, Muller, *Elementary Functions*, 3rd ed., ch. 11; the log after
fdlibm's ``e_log.c``, with Taylor coefficients):

    exp:  x = n ln 2 + r,  n = round(x / ln 2),  |r| <= ln(2)/2 (+ rounding),
          expm1(r) = r + r² (1/2! + r/3! + ... + r^11/13!)   (the first neglected term is below 1.2e-17
          relative for |r| <= 0.3466),   exp(x) = 2^n (1 + expm1(r)),   expm1(x) = 2^n expm1(r) + (2^n - 1);
    tanh: tanh|x| = -t / (2 + t) with t = expm1(-2|x|), the sign of x restored;
    log:  x = 2^e (1 + f),  √½ <= 1 + f < √2,  s = f / (2 + f),  z = s²,
          log(1 + f) = 2 atanh(s) = f - s (f - 2 T(z)),  T(z) = z/3 + z²/5 + ... + z^10/21
          (z <= 0.0295: the first neglected term is below 1e-15 of T, whose share of the result is < 1.5 %).

n ln 2 is split into a high part with trailing zero bits (exact product for |n| < 2^20) and a low part.
``1 + expm1(r)`` is summed with the rounding error of 1 + r carried separately (Fast2Sum); in tanh, t and
2 + t are carried as unevaluated sums hi + lo (TwoSum, Fast2Sum) and the quotient gets one correction.
2^n is built from its exponent bits and applied as two factors 2^⌊n/2⌋ 2^(n - ⌊n/2⌋), both normal numbers,
so results that overflow become inf and results in the subnormal range round once more (< 1 ulp there).

Accuracy over the whole double range, measured against 80-bit ``numpy.longdouble`` references
(tests/core/test_lane_math.py): exp and log within 1 ulp, tanh within 2 ulp (1.55 ulp measured; glibc's
own tanh reaches 2.15). Special values as C99: NaN in, NaN out; exp(+inf) = inf, exp(-inf) = 0,
tanh(±inf) = ±1, tanh(±0) = ±0, log(0) = -inf, log(x < 0) = NaN, log(inf) = inf.
"""
import math

import numpy as np

#: fdlibm's split of ln 2: LN2_HI has 32 trailing zero bits, so n * LN2_HI is exact for |n| < 2^20.
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.44269504088896338700e+00
#: 1.5 * 2^52: adding and subtracting it rounds a double of magnitude < 2^51 to the nearest integer.
ROUNDER = 6755399441055744.0
#: Arguments are clamped to ±CLAMP before reduction: exp overflows above 709.8 and underflows to 0 below
#: -745.2, so the clamp changes no result, and n stays small enough for the exponent bits.
CLAMP = 1100.0
SQRT2 = 1.4142135623730951
#: Subnormal log arguments are scaled by 2^54 first (exact) so that their exponent bits are meaningful.
TWO54 = 18014398509481984.0
SMALLEST_NORMAL = 2.2250738585072014e-308
MANTISSA_BITS = np.int64(0x000FFFFFFFFFFFFF)
EXPONENT_ONE = np.int64(0x3FF0000000000000)

# Taylor coefficients 1/k! of expm1's r^k, k = 2..13
C2, C3, C4, C5 = 1.0 / 2.0, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0
C6, C7, C8, C9 = 1.0 / 720.0, 1.0 / 5040.0, 1.0 / 40320.0, 1.0 / 362880.0
C10, C11, C12, C13 = 1.0 / 3628800.0, 1.0 / 39916800.0, 1.0 / 479001600.0, 1.0 / 6227020800.0
# Taylor coefficients 1/(2k+1) of atanh(s)/s - 1 = Σ z^k / (2k+1), k = 1..10
A1, A2, A3, A4, A5 = 1.0 / 3.0, 1.0 / 5.0, 1.0 / 7.0, 1.0 / 9.0, 1.0 / 11.0
A6, A7, A8, A9, A10 = 1.0 / 13.0, 1.0 / 15.0, 1.0 / 17.0, 1.0 / 19.0, 1.0 / 21.0


def build(jit):
    """Compile the functions with ``jit`` (``numba.njit``, ``numba.cuda.jit(device=True)``, or the identity
    for plain Python); returns ``(exp, tanh, log)``."""

    @jit
    def power_of_two(n):
        """2^n for an integer n (np.int64) with -1022 <= n <= 1023, built from the exponent bits."""
        return np.int64((n + 1023) << 52).view(np.float64)

    @jit
    def reduce(x):
        """(n, r) with x = n ln 2 + r, n integer-valued, |r| <= ln(2)/2 (+ rounding); x is clamped to ±CLAMP
        (NaN goes to CLAMP: the callers put NaN back at the end)."""
        x = max(-CLAMP, min(CLAMP, x))                # min/max compile to selects, not branches
        n = (x * INV_LN2 + ROUNDER) - ROUNDER
        return n, (x - n * LN2_HI) - n * LN2_LO

    @jit
    def expm1_tail(r):
        """expm1(r) - r for |r| <= ln(2)/2: r² (1/2! + r/3! + ... + r^11/13!) by Horner's rule."""
        q = C12 + r * C13
        q = C11 + r * q
        q = C10 + r * q
        q = C9 + r * q
        q = C8 + r * q
        q = C7 + r * q
        q = C6 + r * q
        q = C5 + r * q
        q = C4 + r * q
        q = C3 + r * q
        q = C2 + r * q
        return r * r * q

    @jit
    def exp(x):
        """e^x within 1 ulp (module docstring)."""
        n, r = reduce(x)
        head = 1.0 + r
        carry = (1.0 - head) + r                      # exact: 1 + r = head + carry (Fast2Sum, |r| < 1)
        mantissa = head + (carry + expm1_tail(r))
        whole = np.int64(n)
        half = whole >> 1
        result = mantissa * power_of_two(half) * power_of_two(whole - half)
        return result if x == x else x

    @jit
    def tanh(x):
        """tanh(x) within 2 ulp (module docstring)."""
        n, r = reduce(-2.0 * abs(x))                  # n <= 0, so 2^n and 2^n - 1 are exact
        scale = power_of_two(np.int64(max(n, -1022.0)))
        tail = expm1_tail(r)
        p_hi = r + tail                               # expm1(r) = p_hi + p_lo (Fast2Sum: |tail| < |r|)
        p_lo = (r - p_hi) + tail
        offset = scale - 1.0
        head = scale * p_hi
        t_hi = offset + head                          # t = t_hi + t_lo (TwoSum of offset and head)
        back = t_hi - offset
        t_lo = ((offset - (t_hi - back)) + (head - back)) + scale * p_lo
        d_hi = 2.0 + t_hi
        d_lo = ((2.0 - d_hi) + t_hi) + t_lo           # 2 + t = d_hi + d_lo (Fast2Sum: |t_hi| <= 1 < 2)
        quotient = -t_hi / d_hi
        result = math.copysign(quotient + (-t_lo - quotient * d_lo) / d_hi, x)
        return result if x == x else x

    @jit
    def log(x):
        """log(x) within 1 ulp (module docstring)."""
        tiny = x < SMALLEST_NORMAL
        y = x * TWO54 if tiny else x
        bits = np.float64(y).view(np.int64)
        e = (bits >> 52) - (1023 + 54 if tiny else 1023)
        m = np.int64((bits & MANTISSA_BITS) | EXPONENT_ONE).view(np.float64)    # 1 <= m < 2
        big = m > SQRT2
        f = (m * 0.5 if big else m) - 1.0             # exact (Sterbenz)
        k = np.float64(e + 1 if big else e)
        s = f / (2.0 + f)
        z = s * s
        q = A9 + z * A10
        q = A8 + z * q
        q = A7 + z * q
        q = A6 + z * q
        q = A5 + z * q
        q = A4 + z * q
        q = A3 + z * q
        q = A2 + z * q
        q = A1 + z * q
        correction = s * (f - 2.0 * (z * q))          # log(1 + f) = f - correction
        result = k * LN2_HI + ((k * LN2_LO - correction) + f)
        result = result if x < math.inf else x        # inf and NaN pass through
        result = -math.inf if x == 0.0 else result
        return result if x >= 0.0 else math.nan

    return exp, tanh, log
