// The logs view's --previous box across runs (issue 20): a new run has no previous
// container, so the box is cleared instead of opening the run on kubectl's error.
import { test } from "node:test";
import assert from "node:assert/strict";

import { previousStaysTicked, isLogsError } from "../../static/js/views.js";

const error = { command: "kubectl logs web -c app --previous --tail=200", stderr: 'Error from server (BadRequest): previous terminated container "app" in pod "web" not found', lines: [] };
const lines = { command: "kubectl logs web -c app --previous --tail=200", stderr: "", lines: [["2026-01-01T00:00:07Z", "DB_HOST is not set"]] };

test("--previous is cleared in a new run of the session, even one that will crash again", () => {
  const before = { run: "s1|kind: Pod a", now: 70 };
  assert.equal(previousStaysTicked(before, { run: "s1|kind: Pod b", now: 0 }, error), false, "another scenario applied");
  assert.equal(previousStaysTicked(before, { run: "s2|kind: Pod a", now: 0 }, lines), false, "another session");
});

test("--previous stays while the run goes on, and after going back only if there is a previous container", () => {
  const before = { run: "s1|y", now: 70 };
  assert.equal(previousStaysTicked(before, { run: "s1|y", now: 71 }, lines), true);
  assert.equal(previousStaysTicked(before, { run: "s1|y", now: 71 }, error), true, "asked for: kubectl's own answer");
  assert.equal(previousStaysTicked(before, { run: "s1|y", now: 0 }, error), false, "Restart, or a seek before the first exit");
  assert.equal(previousStaysTicked(before, { run: "s1|y", now: 30 }, lines), true, "a seek to after a crash");
  assert.equal(previousStaysTicked(null, { run: "s1|y", now: 0 }, error), false, "the page opens on no error");
  assert.equal(isLogsError(error), true);
  assert.equal(isLogsError(lines), false);
  assert.equal(isLogsError({ stderr: "", lines: [] }), false, "a previous container that logged nothing");
});
