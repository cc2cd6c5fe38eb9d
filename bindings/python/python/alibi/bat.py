"""BAT-257, the NTRU KEM with a Falcon-style trapdoor, in the SHADOWFAX artifact's encodings."""

from alibi._native import BatSecretKey as SecretKey
from alibi._native import bat_encapsulate as encapsulate

__all__ = ["SecretKey", "encapsulate"]
