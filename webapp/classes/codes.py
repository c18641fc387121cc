"""Class codes and teacher keys.

A code is read aloud and typed by students: CODE_LENGTH characters from an alphabet with no
0/O, 1/I/L (nothing that reads as another character). A teacher key is 192 random bits;
only its SHA-256 is stored, and it is compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0 O 1 I L
CODE_LENGTH = 6  # 31**6 ≈ 887 million codes
KEY_BYTES = 24  # 192 bits


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(value: object) -> str | None:
    """A code as typed ("abc-def", " ABCDEF ") in canonical form, or None if it cannot be one."""
    if not isinstance(value, str) or len(value) > 32:
        return None
    code = "".join(value.split()).replace("-", "").upper()
    if not 6 <= len(code) <= 8 or any(c not in ALPHABET for c in code):
        return None
    return code


def new_key() -> str:
    return secrets.token_urlsafe(KEY_BYTES)


def hash_secret(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "backslashreplace")).hexdigest()


def secret_matches(key: object, stored_hash: str) -> bool:
    if not isinstance(key, str) or len(key) > 256:
        return False
    return hmac.compare_digest(hash_secret(key), stored_hash)
