"""The kubelet and its parts: pod worker, prober, hooks, images, runtime, status, phase and conditions."""
