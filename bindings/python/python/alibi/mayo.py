"""MAYO at MAYO_1, MAYO_2, MAYO_3 and MAYO_5: compact keys and signatures in the specification's
encodings (liboqs's)."""

from alibi._native import MayoSigningKey as SigningKey
from alibi._native import MayoVerifyingKey as VerifyingKey

#: The parameter sets' names.
PARAMS = ("MAYO_1", "MAYO_2", "MAYO_3", "MAYO_5")

__all__ = ["PARAMS", "SigningKey", "VerifyingKey"]
