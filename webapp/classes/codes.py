"""Class codes and teacher keys.

A code is read aloud and typed by students: CODE_LENGTH characters from an alphabet with no
0/O, 1/I/L (nothing that reads as another character). A teacher key is 192 random bits;
only its SHA-256 is stored, and it is compared in constant time. A teacher PIN (six digits,
for a projector PC where the teacher link is awkward to bring) is stored as a SHA-256 salted
with the class code; its tries are rate-limited per address and per class (room.py).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0 O 1 I L
CODE_LENGTH = 6  # 31**6 ≈ 887 million codes
KEY_BYTES = 24  # 192 bits
PIN_DIGITS = 6  # the teacher PIN, typed on a projector PC; tries are rate-limited


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


def new_pin() -> str:
    return "".join(secrets.choice("0123456789") for _ in range(PIN_DIGITS))


def pin_hash(code: str, pin: str) -> str:
    """The stored form of a class's PIN (salted with its code)."""
    return hash_secret(f"{code}:{pin}")


def pin_matches(code: str, pin: object, stored_hash: str | None) -> bool:
    if not stored_hash or not isinstance(pin, str) or len(pin) > 32:
        return False
    return hmac.compare_digest(pin_hash(code, "".join(pin.split())), stored_hash)


def hash_secret(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "backslashreplace")).hexdigest()


def secret_matches(key: object, stored_hash: str) -> bool:
    if not isinstance(key, str) or len(key) > 256:
        return False
    return hmac.compare_digest(hash_secret(key), stored_hash)
