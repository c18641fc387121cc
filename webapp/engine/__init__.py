"""The simulation core: a deterministic discrete-event model of a tiny cluster.

from webapp.engine import Simulation
sim = Simulation.from_yaml(text, seed=0)
sim.advance(30)
sim.pod(), sim.events(), sim.transitions
"""

from webapp.engine.actions import ActionError
from webapp.engine.phase import pod_phase
from webapp.engine.simulation import Simulation
from webapp.manifest import ScenarioError

__all__ = ["ActionError", "ScenarioError", "Simulation", "pod_phase"]
