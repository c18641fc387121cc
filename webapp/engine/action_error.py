"""The error every refused user action raises (engine/actions.py re-exports it): a module
of its own so that the action modules and engine/kubectl_apply.py share it without an
import circle."""

from __future__ import annotations


class ActionError(Exception):
    """An action that cannot be applied now: a stable ``code``, ``params`` and English text."""

    def __init__(self, code: str, params: dict | None = None, message: str = "") -> None:
        super().__init__(message or code)
        self.code = code
        self.params = params or {}
        self.message = message or code
