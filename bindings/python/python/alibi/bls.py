"""Threshold BLS verification: a group's 48-byte public key and the 96-byte signature
``alibi mpc sign`` combines (ciphersuite BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_)."""

from alibi._native import bls_verify as verify

__all__ = ["verify"]
