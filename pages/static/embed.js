// <service-embed src="https://sign.example.com/apiemb/SLUG" width="100%" height="auto">: the signing
// form framed in another site's page. The frame's messages become bubbling DOM events on the element:
// `load` ({path, query}), `completed` and `declined` ({timestamp, redirect_url}). With height="auto"
// the frame takes the height the form asks for. Only messages from the form's own site and frame count.
(() => {
  if (customElements.get("service-embed")) return;
  const EVENTS = { loaded: "load", completed: "completed", declined: "declined" };

  class ServiceEmbed extends HTMLElement {
    static observedAttributes = ["src", "width", "height"];

    constructor() {
      super();
      this.frame = document.createElement("iframe");
      this.frame.style.border = "0";
      this.frame.style.display = "block";
      this.frame.setAttribute("allow", "clipboard-write");
      this.onMessage = this.onMessage.bind(this);
    }

    connectedCallback() {
      if (!this.frame.isConnected) this.append(this.frame);
      this.style.display ||= "block";
      window.addEventListener("message", this.onMessage);
      this.update();
    }

    disconnectedCallback() {
      window.removeEventListener("message", this.onMessage);
    }

    attributeChangedCallback() {
      if (this.isConnected) this.update();
    }

    update() {
      const src = this.getAttribute("src");
      if (src && this.frame.getAttribute("src") !== src) this.frame.setAttribute("src", src);
      this.frame.title = this.getAttribute("title") || "Signing form";
      this.frame.style.width = size(this.getAttribute("width") ?? "100%");
      const height = this.getAttribute("height") ?? "auto";
      if (height !== "auto") this.frame.style.height = size(height);
      else if (!this.frame.style.height) this.frame.style.height = "600px";
    }

    get origin() {
      try {
        return new URL(this.getAttribute("src"), document.baseURI).origin;
      } catch {
        return null;
      }
    }

    onMessage(event) {
      const data = event.data;
      if (event.origin !== this.origin || event.source !== this.frame.contentWindow) return;
      if (!data || typeof data !== "object" || data.source !== "service") return;
      const payload = data.payload && typeof data.payload === "object" ? data.payload : {};
      if (data.type === "resize") {
        if ((this.getAttribute("height") ?? "auto") === "auto" && Number.isFinite(payload.height)) {
          this.frame.style.height = `${Math.ceil(payload.height)}px`;
        }
        return;
      }
      const name = EVENTS[data.type];
      if (!name) return;
      const detail = name === "load"
        ? { path: payload.path ?? null, query: payload.query ?? null }
        : { timestamp: payload.timestamp ?? null, redirect_url: payload.redirect_url ?? null };
      this.dispatchEvent(new CustomEvent(name, { bubbles: true, composed: true, detail }));
    }
  }

  function size(value) {
    return /^\d+(\.\d+)?$/.test(value) ? `${value}px` : value;
  }

  customElements.define("service-embed", ServiceEmbed);
})();
