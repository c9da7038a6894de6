// Render the architecture page's <pre class="mermaid"> blocks (docs/hooks/architecture.py).
if (window.mermaid) { window.mermaid.initialize({ startOnLoad: true }); }
