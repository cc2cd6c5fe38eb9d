"""alibi: post-quantum, deniable, privacy-preserving signatures and AKEMs.

Bytes in, bytes out, in the encodings of the ``alibi`` command's files, so that keys, signatures
and ciphertexts move between the CLI, Rust and Python. Every check raises on failure (an
exception under :class:`alibi.Error`), never returns ``False``; a bad argument value (an unknown
scheme name, a seed of the wrong length) raises :class:`ValueError`.

Modules: :mod:`alibi.falcon`, :mod:`alibi.ring`, :mod:`alibi.akem`, :mod:`alibi.bat`,
:mod:`alibi.mayo`, :mod:`alibi.tachyon`, :mod:`alibi.dgsp`, and the threshold signatures'
verifiers :mod:`alibi.bls`, :mod:`alibi.frost`, :mod:`alibi.ecdsa`.
"""

from alibi._native import (
    Error,
    GroupError,
    InvalidCiphertext,
    InvalidOpening,
    InvalidSignature,
    KeyMismatch,
    MalformedInput,
    Revoked,
    SharedKey,
    StoreError,
    __version__,
)
from alibi import akem, bat, bls, dgsp, ecdsa, falcon, frost, mayo, ring, tachyon

__all__ = [
    "Error",
    "GroupError",
    "InvalidCiphertext",
    "InvalidOpening",
    "InvalidSignature",
    "KeyMismatch",
    "MalformedInput",
    "Revoked",
    "SharedKey",
    "StoreError",
    "__version__",
    "akem",
    "bat",
    "bls",
    "dgsp",
    "ecdsa",
    "falcon",
    "frost",
    "mayo",
    "ring",
    "tachyon",
]
