"""The SDK protocol face: NDJSON user messages and control requests in, stream-json out, on stdin and stdout."""
