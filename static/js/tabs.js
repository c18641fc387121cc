// Which browser tab this is. sessionStorage survives a reload, which is how a tab finds its
// session again; but a duplicated tab starts with a COPY of it, and would drive the same run
// as the original. So each tab keeps an id in sessionStorage and, when it finds one, asks
// the other tabs of this origin (BroadcastChannel) whether a live tab already holds it. If
// one does, this tab is a duplicate: it takes a new id and must start its own session.
// No DOM: the storage and the channel are passed in, so Node's test runner drives it.

export const TAB_KEY = "pod-playground.tab";
export const CHANNEL_NAME = "pod-playground.tabs";

function randomId() {
  return globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * tabIdentity({storage, channel, describe, timeout}) -> {id(), checked: Promise<{duplicate, original}>}
 * `describe()` is what this tab tells a duplicate about itself (its scenario text);
 * `original` is what the original said.
 */
export function tabIdentity({ storage, channel, describe = () => ({}), timeout = 1500, makeId = randomId }) {
  let id = read(storage);
  let settled = false;
  channel?.addEventListener("message", (event) => {
    const msg = event.data || {};
    if (settled && msg.type === "whose" && msg.tab === id) channel.postMessage({ type: "mine", tab: id, ...describe() });
  });
  const renew = () => {
    id = makeId();
    write(storage, id);
  };
  const checked = new Promise((resolve) => {
    const done = (result) => {
      settled = true;
      resolve(result);
    };
    if (!id) {
      renew();
      done({ duplicate: false, original: null });
      return;
    }
    if (!channel) {
      done({ duplicate: false, original: null });
      return;
    }
    const asked = id;
    const onAnswer = (event) => {
      const msg = event.data || {};
      if (msg.type !== "mine" || msg.tab !== asked || settled) return;
      clearTimeout(timer);
      channel.removeEventListener("message", onAnswer);
      renew();
      const { type, tab, ...original } = msg;
      done({ duplicate: true, original });
    };
    // No live tab answers for our id (a reload, a restored tab): the id and session are ours.
    const timer = setTimeout(() => {
      channel.removeEventListener("message", onAnswer);
      done({ duplicate: false, original: null });
    }, timeout);
    channel.addEventListener("message", onAnswer);
    channel.postMessage({ type: "whose", tab: asked });
  });
  return { id: () => id, checked };
}

function read(storage) {
  try {
    return storage?.getItem(TAB_KEY) ?? null;
  } catch {
    return null;
  }
}

function write(storage, id) {
  try {
    storage?.setItem(TAB_KEY, id);
  } catch {
    // Storage disabled: every load is a new tab, which is the safe side.
  }
}
