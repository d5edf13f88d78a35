// When the form runs inside another site's page (/apiemb/), it tells that page what happens, with
// messages of `source: "service"` (embed.js turns them into events). It never navigates by itself.

const embedded = window.parent !== window;

export function tellParent(type, payload) {
  if (embedded) window.parent.postMessage({ source: "service", type, payload }, "*");
}

// `loaded` once, then `resize` whenever the page's height changes.
export function announce() {
  tellParent("loaded", { path: location.pathname, query: location.search });
  let height = 0;
  new ResizeObserver(() => {
    const now = document.documentElement.scrollHeight;
    if (now !== height) tellParent("resize", { height: (height = now) });
  }).observe(document.body);
}
