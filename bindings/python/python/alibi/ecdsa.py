"""Threshold ECDSA verification: what ``alibi mpc sign --scheme ecdsa-secp256k1`` combines is a
standard ECDSA signature over secp256k1 (SHA-256 of the message, ``r || s`` with s low) under the
group's 33-byte compressed key, checked here with k256. ``derive`` gives the BIP-32 child key a
signature made with ``mpc sign --path`` verifies under, from the group's ``xpub``."""

from alibi._native import ecdsa_derive as derive
from alibi._native import ecdsa_verify as verify

__all__ = ["verify", "derive"]
