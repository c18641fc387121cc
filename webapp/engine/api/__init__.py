"""Shared Kubernetes API rules: quantities, pod utilities (podutil) and Event objects."""
