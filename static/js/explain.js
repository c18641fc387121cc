// "What it means, what to check" for every status and reason the page can show,
// following the seed article's troubleshooting table. Pure data: tested in Node.

export const EXPLANATIONS = {
  Pending: {
    en: ["The API server accepted the Pod, but not every container has been created yet: it is waiting to be scheduled, for images, or for init containers.",
      "Conditions: is PodScheduled False (no node fits)? Events: Pulling, FailedScheduling, FailedMount."],
    zh: ["API Server 已接受 Pod，但还有容器没创建：在等调度、拉镜像或 Init 容器。",
      "看 Conditions：PodScheduled 是否为 False（没有合适的节点）？看事件：Pulling、FailedScheduling、FailedMount。"],
  },
  Running: {
    en: ["The Pod is bound to a node and all containers were created; at least one is running, starting or restarting.",
      "Running does not mean healthy: check READY and each container's restarts."],
    zh: ["Pod 已绑定到节点，所有容器都已创建；至少一个容器在运行、启动或重启中。",
      "Running 不等于健康：看 READY 列和每个容器的重启次数。"],
  },
  Succeeded: {
    en: ["Every container exited with code 0 and none will be restarted (typical for Jobs).",
      "Nothing to fix. The Pod stays in the API until someone deletes it."],
    zh: ["所有容器都以退出码 0 结束，且不会再重启（Job 常见）。",
      "无需处理。Pod 会留在 API 中，直到被删除。"],
  },
  Unknown: {
    en: ["kubectl shows Unknown only for a Pod being deleted whose node was lost (reason NodeLost). The phase does not become Unknown when a node just stops answering.",
      "Check the node: kubectl get nodes, and the Pod's Ready condition."],
    zh: ["只有当 Pod 正在被删除且其节点已失联（原因 NodeLost）时，kubectl 才显示 Unknown。节点仅仅失去响应时，阶段不会变成 Unknown。",
      "检查节点：kubectl get nodes，以及 Pod 的 Ready 状况。"],
  },
  Terminating: {
    en: ["The Pod has been deleted (it has a deletionTimestamp) and is shutting down within its grace period. Terminating is not a phase.",
      "Watch preStop, SIGTERM and the grace period. If it hangs: does the app ignore SIGTERM? Is the node gone?"],
    zh: ["Pod 已被删除（有 deletionTimestamp），正在宽限期内关闭。Terminating 不是阶段。",
      "观察 preStop、SIGTERM 和宽限期。如果卡住：应用是否忽略 SIGTERM？节点是否已失联？"],
  },
  ContainerCreating: {
    en: ["The kubelet is preparing the container: pulling the image, mounting volumes, setting up the network.",
      "Events: Pulling / Pulled, FailedMount. A long pull of a big image is normal."],
    zh: ["kubelet 正在准备容器：拉取镜像、挂载卷、配置网络。",
      "看事件：Pulling / Pulled、FailedMount。大镜像拉取慢是正常的。"],
  },
  PodInitializing: {
    en: ["The app containers wait because init containers have not all finished yet.",
      "Look at the init containers' states: which one is running or failing?"],
    zh: ["应用容器在等待，因为 Init 容器还没全部完成。",
      "看 Init 容器的状态：哪一个在运行或失败？"],
  },
  "Init:": {
    en: ["kubectl shows Init:… while init containers run: Init:1/2 means one of two finished; Init:Error or Init:CrashLoopBackOff means an init container fails.",
      "Look at the failing init container's exit code and logs. App containers start only after all init containers succeed."],
    zh: ["Init 容器运行期间 kubectl 显示 Init:…：Init:1/2 表示两个中完成了一个；Init:Error 或 Init:CrashLoopBackOff 表示某个 Init 容器失败。",
      "看失败的 Init 容器的退出码和日志。所有 Init 容器成功后应用容器才会启动。"],
  },
  CrashLoopBackOff: {
    en: ["The container keeps exiting; the kubelet waits longer before each restart (10 s, 20 s, 40 s … up to 5 min). The phase stays Running.",
      "Last state: exit code and reason (Error, OOMKilled). Logs of the previous run (kubectl logs --previous), configuration, missing arguments, liveness probe too strict."],
    zh: ["容器不断退出；kubelet 每次重启前等得更久（10 秒、20 秒、40 秒……最多 5 分钟）。阶段仍是 Running。",
      "看上一次状态：退出码和原因（Error、OOMKilled）。看上一次运行的日志（kubectl logs --previous）、配置、缺少的启动参数、过严的存活探针。"],
  },
  ErrImagePull: {
    en: ["Pulling the image failed just now.",
      "Image name and tag, registry credentials (imagePullSecrets), network. The kubelet retries with a growing back-off (ImagePullBackOff)."],
    zh: ["刚才拉取镜像失败。",
      "检查镜像名和标签、仓库凭证（imagePullSecrets）、网络。kubelet 会以递增的退避时间重试（ImagePullBackOff）。"],
  },
  ImagePullBackOff: {
    en: ["The image could not be pulled; the kubelet waits (10 s … 5 min) before trying again.",
      "Wrong image name or tag, a private registry without credentials, network timeouts. Events: Failed, BackOff."],
    zh: ["镜像无法拉取；kubelet 等待一段时间（10 秒……5 分钟）后再试。",
      "镜像名或标签错误、私有仓库未配置凭证、网络超时。看事件：Failed、BackOff。"],
  },
  ErrImageNeverPull: {
    en: ["imagePullPolicy is Never and the image is not on the node.",
      "Load the image onto the node, or change imagePullPolicy."],
    zh: ["imagePullPolicy 为 Never，而节点上没有这个镜像。",
      "把镜像放到节点上，或修改 imagePullPolicy。"],
  },
  InvalidImageName: {
    en: ["The image reference cannot be parsed.", "Fix the image field's spelling."],
    zh: ["镜像引用无法解析。", "修正 image 字段的拼写。"],
  },
  CreateContainerConfigError: {
    en: ["The container cannot be created because something it refers to is missing: a ConfigMap, a Secret or a key in them.",
      "Events name the missing object. Create it (Apply it in the editor) and the kubelet retries by itself."],
    zh: ["容器无法创建，因为它引用的东西不存在：ConfigMap、Secret 或其中的某个键。",
      "事件里会写出缺少的对象。创建它（在编辑器里“应用”）后 kubelet 会自动重试。"],
  },
  CreateContainerError: {
    en: ["The runtime refused to create the container.", "Events and the container's configuration (command, mounts)."],
    zh: ["容器运行时拒绝创建容器。", "看事件和容器配置（command、挂载）。"],
  },
  RunContainerError: {
    en: ["The container was created but could not be started.",
      "The command exists? Permissions and security context? Events: Failed."],
    zh: ["容器已创建但无法启动。", "命令是否存在？权限和安全上下文？看事件：Failed。"],
  },
  StartError: {
    en: ["The container process could not be started (for example the command is not found); it is reported as terminated with exit code 128.",
      "The command and args, the image's entrypoint, file permissions."],
    zh: ["容器进程无法启动（例如命令不存在），被报告为已终止，退出码 128。",
      "检查 command 和 args、镜像的入口、文件权限。"],
  },
  ContainerCannotRun: {
    en: ["The runtime could not run the container (permissions, security context, file system).",
      "Security context, volumes, the command."],
    zh: ["运行时无法运行容器（权限、安全上下文、文件系统问题）。", "检查安全上下文、卷和命令。"],
  },
  PostStartHookError: {
    en: ["The postStart hook failed, so the kubelet killed the container; it is restarted according to restartPolicy.",
      "The hook's command or HTTP endpoint. Events: FailedPostStartHook."],
    zh: ["postStart 钩子失败，kubelet 杀掉了容器，并按 restartPolicy 重启。",
      "检查钩子的命令或 HTTP 地址。看事件：FailedPostStartHook。"],
  },
  PreStopHookError: {
    en: ["The preStop hook failed; the kubelet goes on with SIGTERM anyway.", "The hook's command or HTTP endpoint. Events: FailedPreStopHook."],
    zh: ["preStop 钩子失败；kubelet 仍会继续发送 SIGTERM。", "检查钩子的命令或 HTTP 地址。看事件：FailedPreStopHook。"],
  },
  OOMKilled: {
    en: ["The container used more memory than resources.limits.memory and the kernel killed it (exit code 137).",
      "Raise the memory limit or reduce the app's memory use; look for leaks."],
    zh: ["容器使用的内存超过了 resources.limits.memory，被内核杀掉（退出码 137）。",
      "提高内存上限或降低应用的内存占用；排查内存泄漏。"],
  },
  Error: {
    en: ["The container exited with a non-zero exit code.",
      "The exit code (1: app error, 137: SIGKILL, 143: SIGTERM) and the logs of that run."],
    zh: ["容器以非 0 退出码退出。",
      "看退出码（1：应用错误，137：SIGKILL，143：SIGTERM）和这次运行的日志。"],
  },
  Completed: {
    en: ["The container exited with code 0.",
      "Fine for a Job. For a server that should keep running, check its command: it ended by itself."],
    zh: ["容器以退出码 0 结束。",
      "对 Job 来说正常。如果这是应该一直运行的服务，检查它的命令：它自己结束了。"],
  },
  NotReady: {
    en: ["Some containers have finished (Completed) while others run, and the Pod is not Ready.",
      "Which container exited, and should it have?"],
    zh: ["部分容器已结束（Completed），其他仍在运行，且 Pod 未就绪。",
      "哪个容器退出了？它应该退出吗？"],
  },
  ContainersNotReady: {
    en: ["At least one container is not ready: not started yet, or its readiness probe fails. The Pod is removed from the Service's endpoints, but not restarted.",
      "The readiness probe (path, port, thresholds) and what it checks."],
    zh: ["至少一个容器未就绪：尚未启动，或就绪探针失败。Pod 会从 Service 的端点中移除，但不会被重启。",
      "检查就绪探针（路径、端口、阈值）以及它检查的内容。"],
  },
  Unschedulable: {
    en: ["The scheduler found no node that fits: not enough CPU or memory, taints, node selectors, affinity.",
      "The FailedScheduling event says why for each node. Requests, nodeSelector, tolerations."],
    zh: ["调度器找不到合适的节点：CPU 或内存不足、污点、节点选择器、亲和性。",
      "FailedScheduling 事件会说明每个节点的原因。检查 requests、nodeSelector、tolerations。"],
  },
  SchedulingGated: {
    en: ["The Pod has scheduling gates; the scheduler ignores it until they are removed.", "spec.schedulingGates."],
    zh: ["Pod 带有调度门控；移除前调度器不会处理它。", "检查 spec.schedulingGates。"],
  },
  NodeLost: {
    en: ["The node of this Pod stopped reporting, and the Pod is being deleted.", "The node's Ready condition; the Pod is recreated elsewhere by its controller."],
    zh: ["Pod 所在节点停止上报，且 Pod 正在被删除。", "看节点的 Ready 状况；控制器会在别处重建 Pod。"],
  },
  Evicted: {
    en: ["The kubelet or the node controller evicted the Pod (node pressure or node gone).", "Node conditions and the Pod's message."],
    zh: ["kubelet 或节点控制器驱逐了 Pod（节点压力或节点失联）。", "看节点状况和 Pod 的 message。"],
  },
  ContainerStatusUnknown: {
    en: ["The container vanished; the kubelet reports it terminated with exit code 137.", "The node and the runtime."],
    zh: ["容器不见了；kubelet 报告其已终止，退出码 137。", "检查节点和容器运行时。"],
  },
  PodCompleted: {
    en: ["All containers have finished, so the Pod is no longer Ready.", "Nothing, for a run-to-completion Pod."],
    zh: ["所有容器都已结束，因此 Pod 不再就绪。", "对一次性任务 Pod 来说无需处理。"],
  },
  DeadlineExceeded: {
    en: ["activeDeadlineSeconds passed and the Pod was stopped.", "spec.activeDeadlineSeconds."],
    zh: ["超过了 activeDeadlineSeconds，Pod 被停止。", "检查 spec.activeDeadlineSeconds。"],
  },
  ContainersNotInitialized: {
    en: ["The Pod's Initialized condition is False: at least one init container has not completed yet (running, failing, or waiting for its back-off).",
      "kubectl STATUS shows Init:x/y; look at the init containers' states and at the logs of the one that is not done (kubectl logs {pod} -c <init>)."],
    zh: ["Pod 的 Initialized 状况为 False：至少一个 Init 容器还没成功结束（正在运行、失败了，或在等退避）。",
      "kubectl 的 STATUS 会显示 Init:x/y；看各 Init 容器的状态，以及未完成那个的日志（kubectl logs {pod} -c <init 容器名>）。"],
  },
  PodFailed: {
    en: ["The Pod's phase is Failed, so its Ready and ContainersReady conditions turned False with this reason. The Pod will not run again.",
      "Find the container that failed: its exit code and reason in describe (Last State / State), and its logs."],
    zh: ["Pod 的 phase 已是 Failed，所以 Ready 和 ContainersReady 两个状况以这个原因变为 False。这个 Pod 不会再运行。",
      "找出失败的容器：在 describe 里看它的退出码和原因（State / Last State），再看它的日志。"],
  },
  // Reasons of events (the events view and describe's Events table).
  Scheduled: {
    en: ["The scheduler bound the Pod to a node (spec.nodeName is set).", "Nothing to fix: the message names the node."],
    zh: ["调度器把 Pod 绑定到了一个节点（spec.nodeName 已填写）。", "无需处理：消息里写着是哪个节点。"],
  },
  FailedScheduling: {
    en: ["The scheduler tried and found no node for the Pod; it keeps retrying. The Pod stays Pending with PodScheduled False.",
      "The message counts the nodes and why each was rejected (Insufficient cpu, taints, node selector). Lower the requests or change the nodeSelector."],
    zh: ["调度器尝试过，但找不到能放下这个 Pod 的节点，会继续重试。Pod 保持 Pending，PodScheduled 为 False。",
      "消息里会列出节点数量和每个节点被排除的原因（Insufficient cpu、污点、节点选择器）。降低 requests 或修改 nodeSelector。"],
  },
  Pulling: {
    en: ["The kubelet started pulling the container's image.", "A pull that never ends: registry reachable? image big? Followed by Pulled or Failed."],
    zh: ["kubelet 开始拉取容器镜像。", "如果一直拉不完：仓库能否访问？镜像是否很大？之后会出现 Pulled 或 Failed。"],
  },
  Pulled: {
    en: ["The image is on the node (just pulled, or already present).", "Nothing to fix: the message says how long the pull took."],
    zh: ["镜像已在节点上（刚拉取完，或本来就有）。", "无需处理：消息里写着拉取用了多久。"],
  },
  Created: {
    en: ["The runtime created the container.", "Nothing to fix: Started follows."],
    zh: ["容器运行时已创建容器。", "无需处理：接下来是 Started。"],
  },
  Started: {
    en: ["The container's process is running. It is not necessarily ready: probes decide that.", "Nothing to fix; check READY and the probes."],
    zh: ["容器进程已经运行。这不代表它已就绪：是否就绪由探针决定。", "无需处理；看 READY 列和探针。"],
  },
  Failed: {
    en: ["As a Pod phase: every container has stopped, at least one failed (non-zero exit or killed), and the restartPolicy will not restart it. As an event: the kubelet could not pull an image or create or start a container.",
      "For the phase: the failed container's exit code, reason and logs. For the event: its message (ErrImagePull, a missing ConfigMap or Secret, a command not found)."],
    zh: ["作为 Pod 的 phase：所有容器都已终止，至少一个失败（退出码非 0 或被杀），且 restartPolicy 不会再重启它。作为事件：kubelet 拉不到镜像，或无法创建、启动容器。",
      "对 phase：看失败容器的退出码、原因和日志。对事件：看它的消息（ErrImagePull、缺少的 ConfigMap 或 Secret、找不到的命令）。"],
  },
  BackOff: {
    en: ["The kubelet is waiting before trying again: restarting a container that keeps exiting (CrashLoopBackOff) or pulling an image that failed (ImagePullBackOff).",
      "The message says which. The wait doubles each time, up to 5 minutes; fix the cause and it recovers on the next try."],
    zh: ["kubelet 在等待后再重试：要么是重启不断退出的容器（CrashLoopBackOff），要么是重新拉取失败的镜像（ImagePullBackOff）。",
      "消息里写着是哪一种。等待时间每次翻倍，最长 5 分钟；修好原因后，下一次重试就会恢复。"],
  },
  Unhealthy: {
    en: ["A probe failed (the message says which: liveness, readiness or startup, and what it got).",
      "Liveness or startup failing enough times restarts the container; readiness failing only removes the Pod from the Service's endpoints. Check the probe's path, port, timeout and thresholds."],
    zh: ["某个探针失败了（消息里写着是存活、就绪还是启动探针，以及它得到了什么结果）。",
      "存活或启动探针连续失败到阈值会重启容器；就绪探针失败只会把 Pod 从 Service 的端点中移除。检查探针的路径、端口、超时和阈值。"],
  },
  Killing: {
    en: ["The kubelet is stopping a container: the Pod was deleted, a liveness or startup probe failed, or the node is being drained. It sends SIGTERM, then SIGKILL when the grace period runs out.",
      "The message says why. An app that takes too long to stop gets SIGKILL (exit code 137): handle SIGTERM or raise terminationGracePeriodSeconds."],
    zh: ["kubelet 正在停止一个容器：Pod 被删除、存活或启动探针失败，或节点正在被排空。它先发送 SIGTERM，宽限期用完后再发送 SIGKILL。",
      "消息里写着原因。停止太慢的应用会被 SIGKILL（退出码 137）：处理好 SIGTERM，或调大 terminationGracePeriodSeconds。"],
  },
  NodeNotReady: {
    en: ["The node controller saw the node stop reporting and marked the Pod not Ready. The phase stays what it was: the control plane cannot know what the containers are doing.",
      "kubectl get nodes; kubectl describe node. After the toleration for not-ready nodes (300 s by default) the Pod is evicted."],
    zh: ["节点控制器发现节点停止上报，把 Pod 标记为未就绪。phase 保持不变：控制平面无从得知容器的实际情况。",
      "执行 kubectl get nodes、kubectl describe node。超过对未就绪节点的容忍时间（默认 300 秒）后，Pod 会被驱逐。"],
  },
  TaintManagerEviction: {
    en: ["The node carries a NoExecute taint (not-ready or unreachable) and the Pod's toleration ran out, so the control plane deleted the Pod.",
      "The node's taints and the Pod's tolerations (tolerationSeconds). A controller (Deployment, Job) would create a replacement elsewhere; a bare Pod is simply gone."],
    zh: ["节点带有 NoExecute 污点（not-ready 或 unreachable），而 Pod 的容忍时间已到，所以控制平面删除了这个 Pod。",
      "看节点的污点和 Pod 的容忍（tolerationSeconds）。由控制器（Deployment、Job）管理的 Pod 会在别处重建；裸 Pod 就直接没了。"],
  },
  FailedMount: {
    en: ["A volume could not be mounted (a missing ConfigMap, Secret or PersistentVolumeClaim, or a storage error).", "The message names the volume: create what is missing."],
    zh: ["某个卷无法挂载（缺少 ConfigMap、Secret 或 PersistentVolumeClaim，或存储出错）。", "消息里写着是哪个卷：把缺少的东西创建出来。"],
  },
  FailedPostStartHook: {
    en: ["The postStart hook failed, so the kubelet killed the container.", "The hook's command or HTTP endpoint; the container restarts according to restartPolicy."],
    zh: ["postStart 钩子执行失败，kubelet 杀掉了容器。", "检查钩子的命令或 HTTP 地址；容器会按 restartPolicy 重启。"],
  },
  FailedPreStopHook: {
    en: ["The preStop hook failed; the kubelet sends SIGTERM anyway.", "The hook's command or HTTP endpoint, and whether it fits in the grace period."],
    zh: ["preStop 钩子执行失败；kubelet 仍会发送 SIGTERM。", "检查钩子的命令或 HTTP 地址，以及它能否在宽限期内完成。"],
  },
};

/**
 * `explain("Init:CrashLoopBackOff", "zh", {pod: "myapp-pod"})` -> [{reason, means, check}, ...]
 * (most specific first). A command in the text names the Pod (`<pod>` when none is given).
 */
export function explain(reason, language = "en", { pod = null } = {}) {
  if (!reason) return [];
  const found = [];
  const named = (text) => text.replaceAll("{pod}", pod || "<pod>");
  const add = (key, label) => {
    const entry = EXPLANATIONS[key];
    if (!entry || found.some((f) => f.key === key)) return;
    const [means, check] = entry[language] || entry.en;
    found.push({ key, reason: label, means: named(means), check: named(check) });
  };
  if (reason.startsWith("Init:")) {
    const inner = reason.slice(5);
    if (!/^\d+\/\d+$/.test(inner)) add(inner, inner);
    add("Init:", reason);
  } else if (reason.startsWith("Signal:") || reason.startsWith("ExitCode:")) {
    add("Error", reason);
  } else {
    add(reason, reason);
  }
  return found;
}
