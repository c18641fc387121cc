"""Graceful deletion on the API server: ``CheckGracefulDelete`` and ``BeforeDelete``.

``pkg/registry/core/pod/strategy.go`` CheckGracefulDelete picks the grace period;
``staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go`` BeforeDelete turns it into
``deletionTimestamp``. Both take the grace as an int64 of seconds, and every value of an
int64 is legal (``terminationGracePeriodSeconds: 9223372036854775807`` passes validation).
The timestamp is computed with Go's ``time.Duration`` arithmetic, whose int64 product wraps
around (:func:`go_seconds_ns`), so the timestamp always stays within about 292 years of now
and never overflows a date.
"""

from __future__ import annotations

NANOSECONDS_PER_SECOND = 1_000_000_000
_UINT64 = 2**64
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def go_int64(value: int) -> int:
    """An integer wrapped to int64 as Go's two's-complement arithmetic wraps it."""
    value %= _UINT64
    return value - _UINT64 if value > INT64_MAX else value


def go_seconds_ns(seconds: int) -> int:
    """``time.Second * time.Duration(seconds)`` in nanoseconds, as Go computes it.

    ``time.Duration`` is an int64 of nanoseconds and Go's integer multiplication wraps on
    overflow, silently: from 9223372037 s (about 292 years) on the product wraps, e.g.
    ``time.Duration(9223372036854775807) * time.Second`` is -1s and ``1e12`` seconds give
    3875820019.684212736 s (about 122.8 years)."""
    return go_int64(go_int64(seconds) * NANOSECONDS_PER_SECOND)


def go_seconds_ms(seconds: int) -> int:
    """:func:`go_seconds_ns` in whole milliseconds (rounded down, like a timestamp)."""
    return go_seconds_ns(seconds) // 1_000_000


def check_graceful_delete(
    requested: int | None, spec_grace: int | None, *, scheduled: bool, terminal: bool
) -> int:
    """``podStrategy.CheckGracefulDelete``: the grace period the deletion gets.

    The DeleteOptions' gracePeriodSeconds if given, else the Pod's
    terminationGracePeriodSeconds (defaulted to 30); 0 when the Pod is not bound to a node
    or has already finished (Succeeded / Failed); a negative value becomes 1."""
    period = requested if requested is not None else (spec_grace or 0)
    if not scheduled or terminal:
        period = 0
    if period < 0:
        period = 1
    return period


def before_delete(now_ms: int, grace_seconds: int) -> int:
    """``rest.BeforeDelete``, first deletion: deletionTimestamp in virtual milliseconds.

    ``metav1.NewTime(metav1.Now().Add(time.Second * time.Duration(grace)))``: the product
    wraps (:func:`go_seconds_ns`), so a grace of 9223372036854775807 s puts the timestamp one
    second in the past, and ``Time.Add`` itself never overflows for such a small duration.
    The object is stored with ``metav1.Time``'s whole seconds, as a later request reads it."""
    return _stored(now_ms * 1_000_000 + go_seconds_ns(grace_seconds))


def before_delete_again(timestamp_ms: int, old_grace: int, new_grace: int) -> int:
    """``rest.BeforeDelete`` on an object already being deleted with a shorter grace:
    ``DeletionTimestamp.Add(-time.Second * time.Duration(old)).Add(time.Second *
    time.Duration(new))`` on the stored (whole-second) timestamp, each product wrapping as
    Go's does."""
    minus_old = go_int64(-go_seconds_ns(old_grace))
    return _stored(timestamp_ms * 1_000_000 + minus_old + go_seconds_ns(new_grace))


def _stored(nanoseconds: int) -> int:
    """A time as ``metav1.Time`` serializes it (RFC 3339, whole seconds), in milliseconds."""
    return nanoseconds // NANOSECONDS_PER_SECOND * 1000
