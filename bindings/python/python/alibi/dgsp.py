"""DGSP, the SPHINCS+-based fully dynamic group signature.

The manager (:class:`Manager`) lives in a directory laid out as ``alibi group manager-keygen``
makes it, so the CLI and Python manage the same group. A member's state is the bytes of the
CLI's member files: the credential (from ``Manager.join``), the secret key, the pending one-time
keys and the certificates. ``csr`` and ``sign`` return the files' new contents: store them
before using what else they return."""

from alibi._native import DgspManager as Manager
from alibi._native import DgspUserKey as UserKey
from alibi._native import dgsp_csr as csr
from alibi._native import dgsp_judge as judge
from alibi._native import dgsp_params
from alibi._native import dgsp_sign as sign
from alibi._native import dgsp_verify as verify

#: The SPHINCS+ parameter sets' names.
PARAMS = tuple(dgsp_params())

__all__ = ["PARAMS", "Manager", "UserKey", "csr", "judge", "sign", "verify"]
