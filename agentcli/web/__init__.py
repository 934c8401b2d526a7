"""Web tools: ``WebFetch`` (a page, read for the model by a small model call) and the API's server-side web search."""
