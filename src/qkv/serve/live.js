// Progressive enhancement of the service's pages: dates in the reader's time zone, and parts of a
// page marked data-live refreshed while something on it is still being graded.
"use strict";
function localDates(root) {
  for (const el of root.querySelectorAll("time[datetime]")) {
    const when = new Date(el.getAttribute("datetime"));
    if (!isNaN(when)) {
      el.textContent = when.toLocaleString(undefined, {dateStyle: "medium", timeStyle: "short"});
      el.title = el.getAttribute("datetime");
    }
  }
}
async function refresh() {
  const live = document.querySelectorAll("[data-live]");
  if (!live.length) return;
  const pending = document.querySelector("[data-pending]");
  const always = document.body.hasAttribute("data-always-live");
  if (!pending && !always) return;
  try {
    const response = await fetch(location.pathname + location.search, {credentials: "same-origin"});
    if (!response.ok) return;
    const next = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const el of live) {
      const fresh = next.getElementById(el.id);
      if (fresh) { el.innerHTML = fresh.innerHTML; localDates(el); }
    }
  } catch (e) { /* the next tick tries again */ }
}
localDates(document);
setInterval(refresh, Number(document.body.dataset.every || 1000));
