"""Scenario texts shared by several test modules."""

from __future__ import annotations

# The smallest valid scenario: one Pod with one container, no Simulation document.
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    image: nginx:1.27
"""
