"""Read and check scenario text: Kubernetes objects plus the playground's Simulation document.

scenario = parse_scenario(text)     # Scenario, or raises ScenarioError
objects = parse_objects(text)       # for the `apply` action
localize_errors(err.errors, "zh")   # the same errors with Chinese messages
"""

from webapp.manifest.errors import ScenarioError
from webapp.manifest.messages import localize_errors
from webapp.manifest.scenario import Scenario, has_simulation, parse_objects, parse_scenario
from webapp.manifest.simulation_doc import DEFAULT_HORIZON_SECONDS

__all__ = [
    "DEFAULT_HORIZON_SECONDS",
    "Scenario",
    "ScenarioError",
    "has_simulation",
    "localize_errors",
    "parse_objects",
    "parse_scenario",
]
