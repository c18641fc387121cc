"""The simulation core: a deterministic discrete-event model of a tiny cluster.

from webapp.engine import Simulation
sim = Simulation.from_yaml(text, seed=0)
sim.advance(30)
sim.pod(), sim.events(), sim.transitions

Layout: find a rule by its Kubernetes home.
- ``simulation``   the cluster: the API server's objects, resourceVersions, deletion, and
                   the wiring of every component below; ``actions`` the user's requests.
- ``scheduler``    kube-scheduler (Filter plugins, FitError).
- ``apiserver/``   defaulting and admission (``defaults``: SetDefaults_*, ServiceAccount).
- ``kubelet/``     the kubelet: pod worker (``kubelet``), ``probes`` (prober), ``hooks``
                   (lifecycle handlers), ``images`` (image manager), ``backoff``
                   (flowcontrol), ``runtime`` (CRI), ``status``, ``phase`` (getPhase),
                   ``conditions`` (status/generate.go), ``termination`` (killContainer),
                   ``security_context``, ``config_refs``, ``record`` (one container).
- ``controllers/`` ``endpoints`` (EndpointSlice controller), ``node_lifecycle``.
- ``api/``         rules every component shares: ``podutil``, ``quantity``, ``events``.
- ``core/``        machinery with no Kubernetes in it: ``clock``, ``process``,
                   ``transitions``, ``timefmt``, ``pod_diff``; ``cluster`` is the protocol
                   the components use to reach the Simulation without importing it.
"""

from webapp.engine import cluster as _cluster  # noqa: F401  (registers the workload runner)
from webapp.engine.actions import ActionError
from webapp.engine.kubelet.phase import pod_phase
from webapp.engine.simulation import Simulation
from webapp.manifest import ScenarioError

__all__ = ["ActionError", "ScenarioError", "Simulation", "pod_phase"]
