"""Deniable ring signatures: GANDALF over Falcon-512/1024 keys (falcon512, falcon1024) and over
Antrag keys with the Mitaka sampler (mitaka512), and MAYO-RS over MAYO keys (mayo1, mayo2).

Members are public keys in the encodings ``alibi ring keygen`` writes (plain Falcon keys for the
Falcon schemes), in ring order: the order is signed."""

from typing import Optional, Sequence, Union

from alibi._native import Ring
from alibi._native import RingSigningKey as SigningKey
from alibi._native import ring_generate as generate
from alibi._native import ring_schemes

#: What a bytes argument takes (as every function of the native module).
_BytesLike = Union[bytes, bytearray, memoryview]

#: The schemes' names.
SCHEMES = tuple(ring_schemes())


def sign(key: SigningKey, members: Sequence[_BytesLike], msg: _BytesLike) -> bytes:
    """Signs ``msg`` for the ring of ``members`` (public keys, the signer's among them)."""
    return Ring(list(members), key.scheme).sign(key, msg)


def verify(
    members: Sequence[_BytesLike],
    msg: _BytesLike,
    sig: _BytesLike,
    scheme: Optional[str] = None,
) -> None:
    """Returns if ``sig`` is a ring signature on ``msg`` by one of ``members``; raises
    :class:`alibi.InvalidSignature` if not."""
    Ring(list(members), scheme).verify(msg, sig)


__all__ = ["SCHEMES", "Ring", "SigningKey", "generate", "sign", "verify"]
