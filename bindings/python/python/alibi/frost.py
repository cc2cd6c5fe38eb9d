"""FROST signature verification: what ``alibi mpc sign --scheme frost-ed25519`` and
``--scheme frost-secp256k1-tr`` combine are standard signatures under the group key, checked here
by verifiers that share no code with the protocol (ed25519-dalek's strict Ed25519, k256's
BIP-340). ``derive_bip340`` and ``derive_ed25519`` give the child keys signatures made with
``mpc sign --path`` verify under, from the group's extended public key."""

from alibi._native import frost_derive_bip340 as derive_bip340
from alibi._native import frost_derive_ed25519 as derive_ed25519
from alibi._native import frost_verify_bip340 as verify_bip340
from alibi._native import frost_verify_ed25519 as verify_ed25519

__all__ = ["verify_ed25519", "verify_bip340", "derive_bip340", "derive_ed25519"]
