"""TACHYON signatures from the generalized compact knapsack, at levels "128", "192", "256" and
"128s", in the encodings ``alibi tachyon`` writes; ``precompute=True`` caches every x_i (the
paper's signer pre-computation variant)."""

from alibi._native import TachyonSigningKey as SigningKey
from alibi._native import TachyonVerifyingKey as VerifyingKey

#: The levels' names.
LEVELS = ("128", "192", "256", "128s")

__all__ = ["LEVELS", "SigningKey", "VerifyingKey"]
