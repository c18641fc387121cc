"""Render Kubernetes API objects exactly as kubectl does. Pure functions of API dicts."""

from webapp.kubectl.columns import pod_columns, pod_columns_wide, print_pod
from webapp.kubectl.describe import describe_pod, events_of_pod
from webapp.kubectl.duration import human_duration, short_human_duration
from webapp.kubectl.events import get_events
from webapp.kubectl.logs import default_container, kubectl_logs, logs_text
from webapp.kubectl.tables import get_pods
from webapp.kubectl.watch import watch_event_lines, watch_lines, watch_writer
from webapp.kubectl.yamlview import pod_yaml

__all__ = [
    "default_container",
    "describe_pod",
    "events_of_pod",
    "get_events",
    "get_pods",
    "human_duration",
    "kubectl_logs",
    "logs_text",
    "pod_columns",
    "pod_columns_wide",
    "pod_yaml",
    "print_pod",
    "short_human_duration",
    "watch_event_lines",
    "watch_lines",
    "watch_writer",
]
