// Recorded-by-hand sample payloads in the shape of docs/internals.md "The wire, in detail".
// They let the pure view-state module be tested without the server.

export const iso = (t) => new Date(Date.UTC(2026, 0, 1) + t * 1000).toISOString().replace(".000Z", "Z");

let seq = 0;
function tr(t, stage, step, container, field, after, cause = "", before = null) {
  return {
    seq: seq++,
    t,
    stage,
    step,
    object: container ? `Container/${container}` : "Pod/web",
    container,
    field,
    before,
    after,
    cause,
  };
}

export const podSpec = {
  nodeName: "node-1",
  restartPolicy: "Always",
  terminationGracePeriodSeconds: 30,
  initContainers: [
    { name: "migrate", image: "busybox:1.36" },
    { name: "log-shipper", image: "fluent-bit:3", restartPolicy: "Always" },
  ],
  containers: [
    {
      name: "app",
      image: "nginx:1.27",
      livenessProbe: { httpGet: { path: "/healthz", port: 80 } },
      readinessProbe: { httpGet: { path: "/ready", port: 80 } },
      lifecycle: { preStop: { exec: { command: ["sleep", "5"] } } },
    },
  ],
};

export const runningTransitions = [
  tr(0, 1, "submitted", null, "phase", "Pending", "Pod created"),
  tr(0, 1, "scheduled", null, "conditions.PodScheduled", "True", "Successfully assigned default/web to node-1"),
  tr(0.5, 1, "kubelet", null, "conditions.PodReadyToStartContainers", "True", "kubelet on node-1 took over"),
  tr(1, 1, "pull", "migrate", "image", "pulled", "Pulling image \"busybox:1.36\""),
  tr(2, 2, "init", "migrate", "state", { state: "running", reason: null, exitCode: null }, "Started"),
  tr(5, 2, "init", "migrate", "state", { state: "terminated", reason: "Completed", exitCode: 0 }, "exited 0"),
  tr(5, 2, "sidecar", "log-shipper", "state", { state: "running", reason: null, exitCode: null }, "Started"),
  tr(6, 3, "start", "app", "state", { state: "running", reason: null, exitCode: null }, "Started"),
  tr(6, 3, "start", "app", "started", true, "Started"),
  tr(16, 4, "liveness", "app", "probe.liveness", "success", "probe passed"),
  tr(16, 4, "readiness", "app", "probe.readiness", "success", "probe passed"),
  tr(16, 4, "readiness", "app", "ready", true, "readiness probe passed"),
];

export const runningPod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "default", creationTimestamp: iso(0) },
  spec: podSpec,
  status: {
    phase: "Running",
    conditions: [
      { type: "Ready", status: "True", lastTransitionTime: iso(16) },
      { type: "PodScheduled", status: "True", lastTransitionTime: iso(0) },
      { type: "Initialized", status: "True", lastTransitionTime: iso(5) },
      { type: "ContainersReady", status: "True", lastTransitionTime: iso(16) },
    ],
    initContainerStatuses: [
      { name: "migrate", ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } },
      { name: "log-shipper", ready: true, restartCount: 0, started: true, state: { running: { startedAt: iso(5) } } },
    ],
    containerStatuses: [
      { name: "app", ready: true, restartCount: 0, started: true, state: { running: { startedAt: iso(6) } } },
    ],
  },
};

export const events = [
  { reason: "Scheduled", type: "Normal", message: "Successfully assigned default/web to node-1", count: 1,
    involvedObject: { kind: "Pod", name: "web" }, firstTimestamp: iso(0), lastTimestamp: iso(0) },
  { reason: "Pulled", type: "Normal", message: "Container image \"busybox:1.36\" already present on machine", count: 1,
    involvedObject: { kind: "Pod", name: "web", fieldPath: "spec.initContainers{migrate}" }, firstTimestamp: iso(1), lastTimestamp: iso(1) },
  { reason: "Started", type: "Normal", message: "Container started", count: 1,
    involvedObject: { kind: "Pod", name: "web", fieldPath: "spec.containers{app}" }, firstTimestamp: iso(6), lastTimestamp: iso(6) },
];

export const endpointSlices = [
  { metadata: { name: "web-abc", labels: { "kubernetes.io/service-name": "web" } },
    endpoints: [{ addresses: ["10.244.1.7"], conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: "Pod", name: "web" } }] },
];

export const nodes = ["node-1", "node-2", "node-3"].map((name) => ({
  metadata: { name },
  status: { conditions: [{ type: "Ready", status: "True" }] },
}));

export const watch =
  "NAME   READY   STATUS     RESTARTS   AGE\n" +
  "web    0/2     Pending    0          0s\n" +
  "web    0/2     Init:0/2   0          1s\n" +
  "web    1/2     PodInitializing   0   5s\n" +
  "web    2/2     Running    0          16s";

export function snapshot(overrides = {}) {
  return {
    session: "s-123",
    seq: 4,
    now: 20,
    clock: { playing: true, speed: 1, end: null },
    pod: runningPod,
    events,
    transitions: runningTransitions,
    endpointSlices,
    nodes,
    views: {
      columns: { NAME: "web", READY: "2/2", STATUS: "Running", RESTARTS: "0", AGE: "20s" },
      watch,
      describe: "Name:         web\nNamespace:    default\nStatus:       Running",
      events: "LAST SEEN   TYPE     REASON      OBJECT    MESSAGE\n20s   Normal   Scheduled   pod/web   Successfully assigned default/web to node-1",
      yaml: "apiVersion: v1\nkind: Pod",
    },
    stage: { stage: 4, step: "readiness", container: "app" },
    scenario: {
      name: "sample",
      title: { en: "Sample", zh: "示例" },
      description: { en: "A sample.", zh: "一个示例。" },
      yaml: "apiVersion: v1\nkind: Pod\n",
      lesson: [
        { at: 0, when: null, text: { en: "The Pod is submitted.", zh: "Pod 已提交。" } },
        { at: null, when: "Running", text: { en: "Now it runs.", zh: "现在运行了。" } },
        { at: null, when: "CrashLoopBackOff", text: { en: "It crashes.", zh: "它崩溃了。" } },
      ],
    },
    actions: [],
    ...overrides,
  };
}

/** The app container crashes twice: exit, back-off 10s, CrashLoopBackOff. */
export function crashTick(base) {
  const last = base.transitions.at(-1).seq;
  const transitions = [
    { seq: last + 1, t: 30, stage: 4, step: "exit", object: "Container/app", container: "app", field: "state",
      before: null, after: { state: "terminated", reason: "Error", exitCode: 1 }, cause: "exited 1" },
    { seq: last + 2, t: 30, stage: 4, step: "backoff", object: "Container/app", container: "app", field: "state",
      before: null, after: { state: "waiting", reason: "CrashLoopBackOff", exitCode: null },
      cause: "Back-off 10s restarting failed container" },
  ];
  const pod = structuredClone(runningPod);
  pod.status.containerStatuses[0] = {
    name: "app", ready: false, restartCount: 1, started: false,
    state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 10s restarting failed container=app" } },
    lastState: { terminated: { exitCode: 1, reason: "Error" } },
  };
  return {
    seq: base.seq + 1,
    now: 31,
    pod,
    transitions,
    views: { ...base.views, columns: { NAME: "web", READY: "1/2", STATUS: "CrashLoopBackOff", RESTARTS: "1 (1s ago)", AGE: "31s" } },
    stage: { stage: 4, step: "backoff", container: "app" },
  };
}

/** `kubectl delete pod web --grace-period=20` at t=40: deadline 60. */
export function deleteTick(base, now = 45) {
  const last = base.transitions.at(-1).seq;
  const pod = structuredClone(runningPod);
  pod.metadata.deletionTimestamp = iso(60);
  pod.metadata.deletionGracePeriodSeconds = 20;
  return {
    seq: base.seq + 1,
    now,
    pod,
    transitions: [
      { seq: last + 1, t: 40, stage: 5, step: "endpoints", object: "EndpointSlice/web-abc", container: null,
        field: "endpoints[0].conditions.terminating", before: false, after: true, cause: "Pod is terminating" },
      { seq: last + 2, t: 40, stage: 5, step: "preStop", object: "Container/app", container: "app",
        field: "hook.preStop", before: null, after: "running", cause: "preStop hook started" },
    ],
    views: { ...base.views, columns: { NAME: "web", READY: "2/2", STATUS: "Terminating", RESTARTS: "0", AGE: "45s" } },
    stage: { stage: 5, step: "preStop", container: "app" },
  };
}
