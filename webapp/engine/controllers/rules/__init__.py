"""The workload controllers' rules as pure functions over API dicts.

One module per Kubernetes controller (``deployment``, ``replicaset``, ``job``,
``statefulset``, ``disruption``), each function named after the Go function it mirrors.
Objects are plain dicts shaped as ``kubectl get -o json`` prints them; virtual time is float
seconds since the engine's epoch (``timestamps`` converts to and from the API's RFC 3339
strings); randomness comes only from a ``random.Random`` the caller passes in.
"""
