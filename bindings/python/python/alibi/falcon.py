"""Falcon-512 and Falcon-1024: keys and detached signatures in the specification's encodings
(the files ``alibi falcon`` and PQClean read and write), and the open preimage sampler."""

from alibi._native import FalconSigningKey as SigningKey
from alibi._native import FalconVerifyingKey as VerifyingKey

__all__ = ["SigningKey", "VerifyingKey"]
