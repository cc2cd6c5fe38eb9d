"""The authenticated KEMs: DH-AKEM (RFC 9180 DHKEM(X25519, HKDF-SHA256)), PQ-AKEM and the hybrid
deniable SHADOWFAX, at every suite, in the layouts of the SHADOWFAX authors' code (the files of
``alibi akem``), with the receiver's deniability forgery ``SecretKey.fake_encap``."""

from alibi._native import AkemSecretKey as SecretKey
from alibi._native import akem_schemes, akem_suites

#: The names ``scheme`` takes.
SCHEMES = tuple(akem_schemes())
#: The names ``suite`` takes (pq and shadowfax).
SUITES = tuple(akem_suites())

__all__ = ["SCHEMES", "SUITES", "SecretKey"]
