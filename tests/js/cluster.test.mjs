// The rolling-update headline (issue 20): requests before any Pod was Ready are told apart.
import { test } from "node:test";
import assert from "node:assert/strict";

import { trafficHeadline } from "../../static/js/cluster.js";
import { setLanguage } from "../../static/js/i18n.js";

// scenarios/workloads/rolling-update.yaml at 80 s (tests/unit/test_traffic_before_ready.py)
const traffic = { service: "web", sent: 1605, failed: 185, noEndpoints: 165, beforeReady: 165,
  rollouts: [{ revision: 1, sent: 600, failed: 165 }, { revision: 2, sent: 1005, failed: 20 }] };

test("the headline does not count the requests made before any Pod was Ready as failures", () => {
  const text = trafficHeadline(traffic);
  assert.match(text, /since a Pod was first Ready: 1440 sent, 20 failed \(0 with no endpoint\)/);
  assert.match(text, /165 sent earlier, before any Pod was Ready/);
  assert.match(text, /since rollout 2: 1005 sent, 20 failed/);
  assert.doesNotMatch(text, /185 failed/);
  setLanguage("zh", { remember: false });
  try {
    assert.match(trafficHeadline(traffic), /已发送 1440，失败 20/);
    assert.match(trafficHeadline(traffic), /165 个是在任何 Pod 就绪之前/);
  } finally {
    setLanguage("en", { remember: false });
  }
});
